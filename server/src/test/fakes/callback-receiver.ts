import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A partner's callback endpoint on a loopback port: records every POST (headers and exact
 * body, for signature checks) and answers with `state.status` (or holds the answer for
 * `state.holdMs`, to be caught mid-delivery).
 */
export async function startCallbackReceiver() {
  const received: ReceivedCallback[] = [];
  const state = { status: 204, holdMs: 0, statuses: [] as number[], retryAfter: null as string | null };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = state.statuses.shift() ?? state.status;
      const answer = () =>
        res.headersSent || res.destroyed
          ? undefined
          : res
              .writeHead(status, {
                'content-type': 'text/plain',
                ...(state.retryAfter !== null && status >= 400 ? { 'retry-after': state.retryAfter } : {}),
              })
              .end(status >= 400 ? 'not now' : '');
      if (state.holdMs > 0) setTimeout(answer, state.holdMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/deletions`,
    received,
    state,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
