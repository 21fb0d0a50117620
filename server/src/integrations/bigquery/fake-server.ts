import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in received. */
export interface FakeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeReply {
  status: number;
  body?: unknown;
}

/** The JSON body of a call, or undefined when it is not JSON. */
export function jsonOf(call: FakeCall): unknown {
  try {
    return JSON.parse(call.body);
  } catch {
    return undefined;
  }
}

/** The token of an "Authorization: Bearer ..." header. */
export function bearerOf(call: FakeCall): string | undefined {
  const header = call.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
}

/**
 * A loopback HTTP server answering JSON from `handler`, recording each call (the stand-in keeps
 * out of server/src/test, which only tests may import).
 */
export async function startLoopbackServer(handler: (call: FakeCall) => Promise<FakeReply>) {
  const calls: FakeCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const call: FakeCall = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      calls.push(call);
      handler(call)
        .catch((error: unknown) => ({ status: 500, body: { error: { code: 500, message: (error as Error).message } } }))
        .then((reply) => {
          const body = reply.body === undefined ? '' : JSON.stringify(reply.body);
          res.writeHead(reply.status, body ? { 'content-type': 'application/json; charset=UTF-8' } : {});
          res.end(body);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
