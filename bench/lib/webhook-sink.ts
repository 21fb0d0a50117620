import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkAnswer {
  headers: Record<string, string>;
  body: string;
}

/**
 * What a vendor's API typically answers a deletion with: a dozen headers (tracing, caching,
 * security, rate limits) and the deleted record echoed back as JSON, about 3 KB.
 */
export const VENDOR_LIKE_ANSWER: SinkAnswer = {
  headers: {
    'content-type': 'application/json; charset=utf-8',
    server: 'cloudflare',
    'cf-ray': '8c2f3e4d5a6b7c8d-FRA',
    'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
    pragma: 'no-cache',
    expires: '0',
    'strict-transport-security': 'max-age=31536000; includeSubDomains; preload',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'x-xss-protection': '0',
    vary: 'Origin, Accept-Encoding',
    'x-request-id': 'req_01J9Z8Y7X6W5V4T3S2R1Q0P9N8',
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': '1764345600',
  },
  body: JSON.stringify({
    id: 'rec_01J9Z8Y7X6W5V4T3S2R1Q0P9N8',
    object: 'deletion',
    status: 'deleted',
    deleted: true,
    record: {
      properties: Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [`property_${i}`, `value of property ${i}, as the vendor stores it`]),
      ),
    },
  }),
};

/**
 * A zero-latency webhook receiver on loopback that counts calls per Idempotency-Key;
 * `onCall` gets each call's body as it arrives; `answer` replaces the default `{"ok":true}`.
 */
export async function startWebhookSink(onCall?: (body: string) => void, answer?: SinkAnswer) {
  const callsByKey = new Map<string, number>();
  let calls = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => onCall && chunks.push(chunk));
    req.on('end', () => {
      onCall?.(Buffer.concat(chunks).toString('utf8'));
      calls++;
      const key = String(req.headers['idempotency-key'] ?? '');
      callsByKey.set(key, (callsByKey.get(key) ?? 0) + 1);
      res.writeHead(200, answer?.headers ?? { 'content-type': 'application/json' });
      res.end(answer?.body ?? '{"ok":true}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    callsByKey,
    reset() {
      calls = 0;
      callsByKey.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
