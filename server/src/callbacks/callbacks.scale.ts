import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackReceiver } from '../test/fakes/callback-receiver';
import { startWebhookServer, type WebhookServer } from '../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';
import { startServiceProcess, stopServiceProcess, type ServiceProcess } from '../test/service-process';

/** Status callbacks sent by real worker processes, one of them killed mid-delivery. */

const ENCRYPTION_KEY = randomBytes(32).toString('base64');

let env: TestEnv;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let hooks: WebhookServer;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv({ ENCRYPTION_KEY });
  receiver = await startCallbackReceiver();
  hooks = await startWebhookServer();
  hooks.on('POST /erase', () => ({ status: 200, body: { ok: true } }));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => stopServiceProcess(p)));
  receiver.received.length = 0;
  Object.assign(receiver.state, { status: 204, holdMs: 0, statuses: [] });
});
afterAll(async () => {
  await receiver?.close();
  await hooks?.close();
  await env?.close();
});

async function worker(): Promise<ServiceProcess> {
  const service = await startServiceProcess(env.db.url, {
    ROLE: 'worker',
    ENCRYPTION_KEY,
    LEASE_SECONDS: '2',
    CALLBACK_POLL_MS: '50',
    CALLBACK_RETRY_BASE_MS: '50',
  });
  running.push(service);
  return service;
}

async function eventually<T>(check: () => Promise<T> | T, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('status callbacks across a SIGKILL', () => {
  it('a worker killed mid-delivery: after a restart the event arrives again with the same webhook-id, and only that id', async () => {
    const org = await seedOrganization(env.deps, 'killed');
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const endpoint = await caller.callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    // The receiver takes the first delivery but holds its answer: the worker is mid-call when killed.
    receiver.state.holdMs = 60_000;
    const request = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'killed@example.com',
    });
    const first = await worker();
    await eventually(() => expect(receiver.received).toHaveLength(1));
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    receiver.state.holdMs = 0;

    await worker();
    const [row] = await eventually(async () => {
      const rows = await env.db.prisma.callbackDelivery.findMany({ where: { deletionRequestId: request.id } });
      expect(rows.map((r) => r.status)).toEqual(['DELIVERED']);
      return rows;
    });
    // At least once (the killed attempt and the one after the lease expired), always under one id.
    expect(receiver.received.length).toBeGreaterThanOrEqual(2);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([row!.id]));
    for (const call of receiver.received) {
      expect(new Webhook(endpoint.secret).verify(call.body, call.headers)).toMatchObject({
        type: 'deletion_request.created',
        data: { deletionRequest: { id: request.id } },
      });
    }
    expect(receiver.received.every((r) => !r.body.includes('killed@example.com'))).toBe(true);
  });

  it('a request that finishes sends deletion_request.completed with its final status, signed', async () => {
    const org = await seedOrganization(env.deps, 'finishing');
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      config: { mode: 'sync', initiate: { method: 'POST', url: `${hooks.url}/erase` } },
    });
    const endpoint = await caller.callbacks.create({
      url: receiver.url,
      events: ['deletion_request.completed', 'deletion_request.failed'],
    });
    const request = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'finishing@example.com',
    });
    await worker();
    const [call] = await eventually(() => (expect(receiver.received).toHaveLength(1), receiver.received));
    const payload = new Webhook(endpoint.secret).verify(call!.body, call!.headers) as {
      type: string;
      data: { deletionRequest: Record<string, unknown> };
    };
    expect(payload.type).toBe('deletion_request.completed');
    expect(payload.data.deletionRequest).toMatchObject({
      id: request.id,
      status: 'SUCCESS',
      integrationRequests: [expect.objectContaining({ name: 'CRM', status: 'SUCCESS' })],
    });
    expect(payload.data.deletionRequest.completedAt).toMatch(/Z$/);
    expect(call!.body).not.toContain('finishing@example.com');
  });
});
