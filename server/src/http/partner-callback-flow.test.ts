import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerClient } from '@shared/partner-client';
import { CallbackDispatcher } from '../callbacks/dispatcher';
import { FAST_ENGINE_CONFIG, startTestWorker } from '../test/engine';
import { startWebhookServer, type WebhookServer } from '../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

/**
 * The README's "Receiving status callbacks" example, run: a receiver that verifies each delivery
 * with plain node:crypto (the function below is the README's, verbatim) and with the
 * standardwebhooks package, and a partner that registers it, creates a request with the typed
 * client, waits for its callback and reads its audit trail.
 */

// --- README: verifying with node:crypto ---
function verifyCallback(
  secret: string,
  headers: http.IncomingHttpHeaders,
  body: string,
  toleranceSeconds = 300,
): unknown {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const signatures = String(headers['webhook-signature'] ?? '').split(' ');
  if (!id || !/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds)
    throw new Error('stale or malformed callback');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const valid = signatures.some((signature) => {
    const [version, value] = signature.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) throw new Error('invalid signature');
  return JSON.parse(body);
}
// --- end of the README's function ---

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let hooks: WebhookServer;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let dispatcher: CallbackDispatcher;
let receiver: http.Server;
const received: {
  event: { type: string; data: { deletionRequest?: { id: string; status: string } } };
  webhookId: string;
  bothAgree: boolean;
}[] = [];
let secret = '';

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  server = await startTestServer(env.deps);
  hooks = await startWebhookServer();
  hooks.on('POST /erase', () => ({ status: 200 }));
  receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      try {
        const event = verifyCallback(secret, request.headers, body) as (typeof received)[number]['event'];
        const library = new Webhook(secret).verify(body, request.headers as Record<string, string>);
        received.push({
          event,
          webhookId: String(request.headers['webhook-id']),
          bothAgree: JSON.stringify(library) === JSON.stringify(event),
        });
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  worker = await startTestWorker(env);
  dispatcher = new CallbackDispatcher(
    { ...env.deps, pool: env.db.pool },
    {
      concurrency: 4,
      pollIntervalMs: 10_000,
      leaseMs: 5_000,
      maxAttempts: 3,
      retryBaseMs: 20,
      retryMaxMs: 50,
      timeoutMs: 2_000,
    },
  );
  await dispatcher.start();
});
afterAll(async () => {
  await dispatcher?.stop(1_000);
  await worker?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await hooks?.close();
  await server?.close();
  await env?.close();
});

describe('a partner creates a request, waits for its callback and reads its audit trail', () => {
  it('works as the README shows', async () => {
    const org = await seedOrganization(env.deps, 'partner-flow');
    const admin = callerFor(env.deps, { pat: org.pat }).caller;
    await admin.integrations.create({
      workspaceId: org.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      config: { initiate: { url: `${hooks.url}/erase` } },
    });
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callbacks`;

    // --- README: the partner ---
    const api = createPartnerClient({ baseUrl: server.baseUrl, token: org.pat });
    const { data: endpoint } = await api.POST('/callback-endpoints', {
      body: { url: receiverUrl, events: ['deletion_request.completed'] },
      headers: { 'Idempotency-Key': 'register-receiver-1' },
    });
    secret = endpoint!.secret;

    const { data: request, error } = await api.POST('/deletion-requests', {
      body: { workspaceApiKey: org.workspaceApiKey, identifier: 'jane@example.com' },
      headers: { 'Idempotency-Key': 'crm-export-4711' },
    });
    if (error) throw new Error(`${error.code}: ${error.message}`);
    const deadline = Date.now() + 15_000;
    while (!received.some((r) => r.event.data.deletionRequest?.id === request.id)) {
      if (Date.now() > deadline) throw new Error('no callback');
      await new Promise((r) => setTimeout(r, 25));
    }
    const { data: trail } = await api.GET('/deletion-requests/{deletionRequestId}/audit-trail', {
      params: { path: { deletionRequestId: request.id } },
    });
    // --- end ---

    const callback = received.find((r) => r.event.data.deletionRequest?.id === request.id)!;
    expect(callback.event).toMatchObject({
      type: 'deletion_request.completed',
      data: { deletionRequest: { id: request.id, status: 'SUCCESS' } },
    });
    expect(callback.bothAgree).toBe(true);
    expect(JSON.stringify(callback.event)).not.toContain('jane@example.com');
    expect(trail!.map((e) => e.action)).toEqual(expect.arrayContaining(['request.created', 'request.completed']));
    // A forged body is refused by the README's function.
    expect(() =>
      verifyCallback(
        secret,
        {
          'webhook-id': callback.webhookId,
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        '{}',
      ),
    ).toThrow('invalid signature');
  });
});
