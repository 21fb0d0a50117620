import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../types';
import { createHttpClient } from './http-client';

/** Answers like a vendor's API: a dozen headers and a long JSON body (or 429 with its limits on /busy). */
let server: http.Server;
let base: string;
const LONG_BODY = JSON.stringify({ deleted: true, record: 'x'.repeat(5_000) });
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    const busy = req.url === '/busy';
    res.writeHead(busy ? 429 : 200, {
      'content-type': 'application/json; charset=utf-8',
      server: 'cloudflare',
      'cache-control': 'no-store',
      'strict-transport-security': 'max-age=31536000',
      'x-content-type-options': 'nosniff',
      vary: 'Origin',
      'x-request-id': 'req_42',
      'x-ratelimit-remaining': busy ? '0' : '99',
      ...(busy ? { 'retry-after': '30' } : { location: '/jobs/7' }),
    });
    res.end(busy ? '{"error":"slow down"}' : LONG_BODY);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function recorded(path: string, headers: Record<string, string>, body?: string) {
  const trail: Exchange[] = [];
  const client = createHttpClient({ trail, secrets: ['s3cret-token'] });
  const answer = await client.request({ method: 'POST', url: `${base}${path}`, headers, body });
  const exchange = trail[0]!;
  if (exchange.kind !== 'http') throw new Error('not an HTTP exchange');
  return { answer, exchange };
}

describe('a recorded exchange keeps the evidence, not every byte', () => {
  it('keeps the headers sent (secrets redacted) without the default user agent and JSON type', async () => {
    const { exchange } = await recorded(
      '/erase',
      { Authorization: 'Bearer s3cret-token', 'Idempotency-Key': 'ir_1', 'X-Tenant': 'eu' },
      '{"email":"jane@example.com"}',
    );
    expect(exchange.request.headers).toEqual({
      Authorization: '[redacted]',
      'Idempotency-Key': 'ir_1',
      'X-Tenant': 'eu',
    });
    expect(exchange.request.body).toBe('{"email":"jane@example.com"}');
  });

  it('keeps a content type that is not the default one', async () => {
    const { exchange } = await recorded('/erase', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'a=1');
    expect(exchange.request.headers).toEqual({ 'Content-Type': 'application/x-www-form-urlencoded' });
  });

  it("keeps the answer's ids and location, drops its caching and security headers, and caps a long body at 2,048 characters saying how long it was", async () => {
    const { answer, exchange } = await recorded('/erase', {}, '{}');
    expect(exchange.response!.headers).toEqual({ 'x-request-id': 'req_42', location: '/jobs/7' });
    expect(exchange.response!.body).toBe(
      `${LONG_BODY.slice(0, 2_048)}… [${LONG_BODY.length} characters in all; the first 2048 recorded]`,
    );
    // The driver still reads the whole answer.
    expect(answer.text).toBe(LONG_BODY);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('keeps retry-after and the rate limits of a refusal', async () => {
    const { exchange } = await recorded('/busy', {}, '{}');
    expect(exchange.response!.status).toBe(429);
    expect(exchange.response!.headers).toEqual({
      'x-request-id': 'req_42',
      'x-ratelimit-remaining': '0',
      'retry-after': '30',
    });
    expect(exchange.response!.body).toBe('{"error":"slow down"}');
  });
});
