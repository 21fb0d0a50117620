import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransientError } from '../types';
import { createHttpClient } from './http-client';

/** Answers at once, then sends its body a byte every 50 ms for two seconds: never silent for long. */
let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    let sent = 0;
    const drip = setInterval(() => {
      if (res.destroyed || ++sent > 40) {
        clearInterval(drip);
        if (!res.destroyed) res.end();
        return;
      }
      res.write('.');
    }, 50);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('outbound HTTP', () => {
  it('gives up on a whole call that outlasts its timeout, even when the destination is never silent for long', async () => {
    const client = createHttpClient({ trail: [], secrets: [] });
    const started = Date.now();
    const call = client.request({ method: 'GET', url, timeoutMs: 300 });
    await expect(call).rejects.toBeInstanceOf(TransientError);
    await expect(call).rejects.toThrow(/no complete answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('takes an answer that comes in time', async () => {
    const client = createHttpClient({ trail: [], secrets: [] });
    const answer = await client.request({ method: 'GET', url, timeoutMs: 5_000 });
    expect(answer.text).toBe('.'.repeat(40));
  });
});
