import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A destination on loopback for the backlog scenario: what it was sent, and how it answered. */
export interface FakeDestination {
  url: string;
  calls: number;
  refused: number;
  /** When the first call arrived (Date.now()); null before one. */
  firstCallAt: number | null;
  close(): Promise<void>;
}

/**
 * Answers every call 200 after `latencyMs`. With `perSecond`, it is a vendor's rate limit as a
 * token bucket (one second's worth of burst, refilled at `perSecond`): a call beyond it is
 * answered at once with 429 and `Retry-After: 1`.
 */
export async function startFakeDestination(latencyMs: number, perSecond?: number): Promise<FakeDestination> {
  let tokens = perSecond ?? 0;
  let filledAt = performance.now();
  const take = (): boolean => {
    if (perSecond === undefined) return true;
    const now = performance.now();
    tokens = Math.min(perSecond, tokens + ((now - filledAt) / 1000) * perSecond);
    filledAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const server = http.createServer((req, res) => {
    fake.calls++;
    fake.firstCallAt ??= Date.now();
    req.resume();
    req.on('end', () => {
      if (!take()) {
        fake.refused++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":"rate limited"}');
        return;
      }
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeDestination = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: 0,
    refused: 0,
    firstCallAt: null,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
