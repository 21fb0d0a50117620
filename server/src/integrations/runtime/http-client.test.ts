import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertUrlAllowed, OutboundBlockedError, policyFromConfig } from '../../lib/ssrf';
import { PermanentError, TransientError } from '../types';
import { createHttpClient } from './http-client';
import { outboundTools } from './outbound';

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

  it('a name that does not resolve is worth another attempt; an address the SSRF guard refuses is not', async () => {
    const policy = policyFromConfig({});
    const client = createHttpClient({
      trail: [],
      secrets: [],
      checkUrl: async (target) => void (await assertUrlAllowed(target, policy)),
    });
    // .invalid never resolves (RFC 6761): what a resolver outage looks like to the caller.
    const unresolved = client.request({ method: 'POST', url: 'https://hooks.nothing-here.invalid/erase' });
    await expect(unresolved).rejects.toBeInstanceOf(TransientError);
    await expect(unresolved).rejects.toThrow('Host hooks.nothing-here.invalid could not be resolved');
    await expect(client.request({ method: 'POST', url: 'http://169.254.169.254/latest' })).rejects.toBeInstanceOf(
      PermanentError,
    );
    // Saving such a URL is still refused at once.
    await expect(assertUrlAllowed('https://hooks.nothing-here.invalid/erase', policy)).rejects.toBeInstanceOf(
      OutboundBlockedError,
    );
    // A data store's host, resolved by the driver's tools, likewise.
    const tools = outboundTools(policy, [], []);
    await expect(tools.resolveHost('db.nothing-here.invalid')).rejects.toBeInstanceOf(TransientError);
    await expect(tools.resolveHost('169.254.169.254')).rejects.toBeInstanceOf(PermanentError);
  });

  it('takes an answer that comes in time', async () => {
    const client = createHttpClient({ trail: [], secrets: [] });
    const answer = await client.request({ method: 'GET', url, timeoutMs: 5_000 });
    expect(answer.text).toBe('.'.repeat(40));
  });

  it('sends a call once more on a new connection when the kept-alive one it reused was closed before any answer', async () => {
    // The destination answers the first call on a connection and drops the connection on the
    // next one it reads there, as a server whose keep-alive timeout ended as the call arrived.
    const callsBySocket = new Map<unknown, number>();
    let answered = 0;
    const flaky = http.createServer((req, res) => {
      const n = (callsBySocket.get(req.socket) ?? 0) + 1;
      callsBySocket.set(req.socket, n);
      if (n > 1) {
        req.socket.destroy();
        return;
      }
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const target = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/delete`;
      const client = createHttpClient({ trail: [], secrets: [] });
      expect((await client.request({ method: 'POST', url: target, body: '{}' })).status).toBe(200);
      // The second call reuses the kept-alive connection, which is dropped: it is sent again on a new one.
      expect((await client.request({ method: 'POST', url: target, body: '{}' })).status).toBe(200);
      expect(answered).toBe(2);
      expect(callsBySocket.size).toBe(2);
    } finally {
      flaky.closeAllConnections();
      await new Promise((resolve) => flaky.close(resolve));
    }
  });
});
