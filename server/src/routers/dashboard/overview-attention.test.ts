import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { startWebhookServer, type WebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';

let env: TestEnv;
let hooks: WebhookServer;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  hooks = await startWebhookServer();
  hooks.on('POST /crm', () => ({ status: 422, body: { message: 'unknown subject' } }));
  hooks.on('POST /warehouse', () => ({ status: 204 }));
  worker = await startTestWorker(env);
});
afterAll(async () => {
  await worker?.stop();
  await hooks?.close();
  await env?.close();
});

describe('overview: needs attention', () => {
  it('names each integration that failed and why, not only the request', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const connect = (name: string, path: string) =>
      caller.integrations.create({
        workspaceId: org.workspace.id,
        name,
        type: 'WEBHOOK',
        accountId: null,
        config: { mode: 'sync', initiate: { method: 'POST', url: `${hooks.url}${path}` } },
      });
    const crm = await connect('Internal CRM', '/crm');
    await connect('Warehouse', '/warehouse');
    const request = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'attention@example.com',
    });
    expect((await waitForRequest(env, request.id)).status).toBe('FAILED');

    const overview = await caller.dashboard.overview({});
    expect(overview.needsAttentionTotal).toBe(1);
    const [row] = overview.needsAttention;
    expect(row?.id).toBe(request.id);
    // Only the one that failed: the warehouse succeeded.
    expect(row?.failures).toHaveLength(1);
    expect(row?.failures[0]).toMatchObject({
      integrationId: crm.id,
      integrationName: 'Internal CRM',
      integrationType: 'WEBHOOK',
      status: 'FAILED',
    });
    expect(row?.failures[0]?.error).toContain('422');
    expect(row?.failures[0]?.error).toContain('unknown subject');
  });
});
