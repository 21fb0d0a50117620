import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerRestFacade } from './rest-facade';

const t = initTRPC.meta<OpenApiMeta>().create();
// The adapter gives the call's signal to the context (not to the procedure).
const signals: AbortSignal[] = [];
// The call descriptions themselves: a signal is made when first asked for.
const infos: { signal: AbortSignal }[] = [];
let started: () => void = () => {};
let left: Promise<void> = Promise.resolve();
const router = t.router({
  answer: t.procedure
    .meta({ openapi: { method: 'POST', path: '/answer' } })
    .input(z.object({ n: z.number() }))
    .output(z.object({ n: z.number() }))
    .mutation(({ input }) => {
      return { n: input.n + 1 };
    }),
  // Answers only once its client has gone away (or after 5 s).
  wait: t.procedure
    .meta({ openapi: { method: 'POST', path: '/wait' } })
    .input(z.object({}))
    .output(z.object({ aborted: z.boolean() }))
    .mutation(async () => {
      const signal = signals.at(-1)!;
      started();
      await new Promise((resolve) => {
        signal.addEventListener('abort', resolve);
        setTimeout(resolve, 5_000);
      });
      return { aborted: signal.aborted };
    }),
  // Asks for its call's signal only after its client has gone away.
  late: t.procedure
    .meta({ openapi: { method: 'POST', path: '/late' } })
    .input(z.object({}))
    .output(z.object({ aborted: z.boolean() }))
    .mutation(async () => {
      const info = infos.at(-1)!;
      started();
      await left;
      return { aborted: info.signal.aborted };
    }),
});

const app = Fastify();
let base = '';
beforeAll(async () => {
  await registerRestFacade(app, {
    basePath: '/api',
    router,
    createContext: ({ info, req }: { info: { signal: AbortSignal }; req: { url: string } }) => {
      if (req.url.endsWith('/late')) infos.push(info);
      else signals.push(info.signal);
      return {};
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(() => app.close());

describe('the REST facade', () => {
  it('answers a call and leaves its signal alone once it has answered', async () => {
    signals.length = 0;
    const response = await fetch(`${base}/api/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 41 }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ n: 42 });
    // The response has closed by now on the server's side too.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
  });

  it("aborts a call's signal when its client goes away before the answer", async () => {
    signals.length = 0;
    const running = new Promise<void>((resolve) => (started = resolve));
    const request = http.request(`${base}/api/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    request.on('error', () => {});
    request.end('{}');
    await running;
    request.destroy();
    await expect.poll(() => signals[0]?.aborted, { timeout: 3_000 }).toBe(true);
  });

  it('gives a signal asked for after the client went away as aborted already', async () => {
    infos.length = 0;
    let leave: () => void = () => {};
    left = new Promise((resolve) => (leave = resolve));
    const running = new Promise<void>((resolve) => (started = resolve));
    const answered = new Promise<string>((resolve) => {
      const request = http.request(`${base}/api/late`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      request.on('error', () => resolve('gone'));
      request.end('{}');
      void running.then(() => {
        request.destroy();
        resolve('gone');
      });
    });
    expect(await answered).toBe('gone');
    // The server sees the connection close, then the procedure asks for its signal.
    await new Promise((resolve) => setTimeout(resolve, 100));
    leave();
    await expect.poll(() => infos[0]?.signal.aborted, { timeout: 3_000 }).toBe(true);
  });
});
