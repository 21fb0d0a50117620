import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, callerFor, seedOrganization, type TestEnv } from '../test/harness';
import { startTestWorker, waitForRequest } from '../test/engine';
import { startWebhookServer, type WebhookServer } from '../test/fakes/webhook-server';
import { CHANNELS, wakeWorkers } from './wake-up';

let env: TestEnv;
let hooks: WebhookServer;

beforeAll(async () => {
  env = await createTestEnv();
  hooks = await startWebhookServer();
});
afterAll(async () => {
  await hooks?.close();
  await env?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('waking workers', () => {
  it('sends one notification at once for a burst and one more after it, not one per request', async () => {
    const listener = new pg.Client({ connectionString: env.db.url });
    await listener.connect();
    const received: number[] = [];
    listener.on('notification', () => received.push(Date.now()));
    await listener.query(`LISTEN ${CHANNELS.deletions}`);
    try {
      await sleep(50);
      for (let i = 0; i < 100; i++) wakeWorkers(env.db.prisma);
      await sleep(200);
      expect(received).toHaveLength(2);
      // A later, lone request wakes the workers at once again.
      wakeWorkers(env.db.prisma);
      await sleep(100);
      expect(received).toHaveLength(3);
    } finally {
      await listener.end();
    }
  });

  it('an idle worker starts a new request at once, long before its next poll', async () => {
    hooks.on('POST /erase', () => ({ status: 200, body: { ok: true } }));
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      accountId: null,
      config: {
        mode: 'sync',
        initiate: { method: 'POST', url: `${hooks.url}/erase`, body: '{"id":"{{identifier}}"}' },
      },
    });
    const worker = await startTestWorker(env, { pollIntervalMs: 60_000 });
    try {
      // The worker's first claim at start-up found nothing; only a notification can bring it this request.
      await sleep(200);
      const created = await caller.deletionRequests.createInWorkspace({
        workspaceId: org.workspace.id,
        identifier: 'jane@example.com',
      });
      const done = await waitForRequest(env, created.id, ['SUCCESS'], 5_000);
      expect(done.status).toBe('SUCCESS');
    } finally {
      await worker.stop();
    }
  });
});
