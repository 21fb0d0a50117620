import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Responder = (
  call: RecordedCall,
  nth: number,
) => { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number };

/**
 * A loopback HTTP server standing in for a customer's internal system: routes are set per
 * test (sync, async, flapping, 429, slow...), and every call is recorded.
 */
export async function startWebhookServer() {
  const routes = new Map<string, Responder>();
  const calls: RecordedCall[] = [];
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const call: RecordedCall = {
        method: req.method ?? 'GET',
        path: url.pathname + url.search,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      calls.push(call);
      const key = `${call.method} ${url.pathname}`;
      const responder = routes.get(key) ?? [...routes.entries()].find(([route]) => matches(route, key))?.[1];
      const nth = (counts.get(key) ?? 0) + 1;
      counts.set(key, nth);
      const answer = responder ? responder(call, nth) : { status: 404, body: { error: 'no such route' } };
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    /** `route` is "METHOD /path", with `*` matching one path segment. */
    on(route: string, responder: Responder) {
      routes.set(route, responder);
    },
    callsTo(route: string) {
      return calls.filter((c) => matches(route, `${c.method} ${c.path.split('?')[0]}`));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function matches(route: string, key: string): boolean {
  const pattern = new RegExp(`^${route.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+')}$`);
  return pattern.test(key);
}

export type WebhookServer = Awaited<ReturnType<typeof startWebhookServer>>;
