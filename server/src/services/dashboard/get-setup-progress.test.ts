import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookServer, type WebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, type TestEnv } from '../../test/harness';
import { createSession } from '../auth/sessions';
import { createUserWithOrganization } from '../auth/sign-up';

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

const webhook = (url: string) => ({ mode: 'sync' as const, initiate: { url: `${url}/erase?email={{identifier}}` } });

describe("the Overview's setup checklist", () => {
  it('ticks each first step once the organization has taken it, and only then', async () => {
    const { user, organization } = await createUserWithOrganization(env.deps.prisma, {
      email: 'first-steps@example.com',
      password: 'correct horse battery staple',
      name: 'Fay First',
      organizationName: 'First Steps',
    });
    const { caller } = callerFor(env.deps, {
      sessionToken: await createSession(env.db.prisma, user.id, organization.id),
    });
    const none = {
      workspaceCreated: false,
      integrationTested: false,
      firstRequest: false,
      teammateInvited: false,
      callbackOrToken: false,
    };
    expect(await caller.dashboard.setupProgress()).toEqual(none);

    const workspace = await caller.workspaces.create({ name: 'Shop' });
    expect(await caller.dashboard.setupProgress()).toEqual({ ...none, workspaceCreated: true });

    // A test that fails (nothing listens on port 9) does not count; one that passes does.
    const unreachable = await caller.integrations.create({
      workspaceId: workspace.id,
      name: 'Nowhere',
      type: 'WEBHOOK',
      accountId: null,
      config: webhook('http://127.0.0.1:9'),
    });
    expect((await caller.integrations.testConnection({ integrationId: unreachable.id })).ok).toBe(false);
    expect((await caller.dashboard.setupProgress()).integrationTested).toBe(false);
    const crm = await caller.integrations.create({
      workspaceId: workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      accountId: null,
      config: webhook(hooks.url),
    });
    expect((await caller.integrations.testConnection({ integrationId: crm.id })).ok).toBe(true);
    expect((await caller.dashboard.setupProgress()).integrationTested).toBe(true);

    await caller.deletionRequests.createInWorkspace({ workspaceId: workspace.id, identifier: 'sam@example.com' });
    await caller.members.invite({ email: 'teammate@example.com', role: 'MEMBER' });
    expect(await caller.dashboard.setupProgress()).toEqual({
      workspaceCreated: true,
      integrationTested: true,
      firstRequest: true,
      teammateInvited: true,
      callbackOrToken: false,
    });
    await caller.tokens.create({ name: 'CRM sync' });
    expect((await caller.dashboard.setupProgress()).callbackOrToken).toBe(true);
  });
});
