import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A zero-latency webhook receiver on loopback that counts calls per Idempotency-Key;
 * `onCall` gets each call's body as it arrives.
 */
export async function startWebhookSink(onCall?: (body: string) => void) {
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
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
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
