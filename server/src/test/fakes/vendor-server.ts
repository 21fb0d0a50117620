import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake vendor received. */
export interface FakeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** What the fake answered (set once the handler has run); contract tests check it against the vendor's document. */
  reply?: FakeReply;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type FakeHandler = (call: FakeCall) => FakeReply | Promise<FakeReply>;

/** What every vendor fake returns: its base URL, its state (to seed and inspect) and close. */
export interface FakeVendor<State> {
  url: string;
  state: State;
  calls: FakeCall[];
  close(): Promise<void>;
}

/** A loopback HTTP server that records each call and answers JSON from `handler`. */
export async function startFakeServer(
  handler: FakeHandler,
): Promise<{ url: string; calls: FakeCall[]; close(): Promise<void> }> {
  const calls: FakeCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const call: FakeCall = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      calls.push(call);
      let reply: FakeReply;
      try {
        reply = await handler(call);
      } catch (error) {
        reply = { status: 500, body: { error: (error as Error).message } };
      }
      call.reply = reply;
      const body =
        reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(reply.headers ?? {}),
      });
      res.end(body);
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

/** Time-based status progressions: each step lasts its ms, the last one holds. */
export function stepAt<S extends string>(createdAt: number, steps: [S, number][], final: S, now = Date.now()): S {
  let elapsed = now - createdAt;
  for (const [status, ms] of steps) {
    if (elapsed < ms) return status;
    elapsed -= ms;
  }
  return final;
}
