import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for a Slack incoming webhook, per Slack's documented contract
 * (api.slack.com/messaging/webhooks): POST application/json with `text` (or `blocks`) to the
 * secret path; 200 with the plain-text body "ok", 400 "invalid_payload" for a body without
 * them, 403 "invalid_token" on another path.
 */
export async function startSlackWebhook() {
  const path = '/services/T0000TEST/B0000TEST/' + Math.random().toString(36).slice(2, 14);
  const messages: { text?: string; blocks?: unknown[] }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(body);
      };
      if (req.method !== 'POST' || req.url !== path) return reply(403, 'invalid_token');
      let payload: { text?: unknown; blocks?: unknown };
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(400, 'invalid_payload');
      }
      if (typeof payload.text !== 'string' && !Array.isArray(payload.blocks)) return reply(400, 'invalid_payload');
      messages.push(payload as { text?: string });
      reply(200, 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
