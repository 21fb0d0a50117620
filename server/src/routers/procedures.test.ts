import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetVerifiedTokens } from '../services/auth/pat-cache';
import { createTestEnv, callerFor, seedOrganization, type TestEnv } from '../test/harness';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('auth procedures', () => {
  it('sign up creates an owner and organization and a session; sign in rotates it; sign out ends it', async () => {
    const { caller, ctx } = callerFor(env.deps);
    const signedUp = await caller.auth.signUp({
      email: 'Founder@Example.com ',
      password: 'a long enough password',
      name: 'Founder',
      organizationName: 'Founders Inc',
    });
    const firstSession = ctx.cookies.dds_session!;
    expect(firstSession).toBeTruthy();
    const me = await caller.auth.me();
    expect(me).toMatchObject({
      user: { email: 'founder@example.com' },
      organizationId: signedUp.organizationId,
      role: 'OWNER',
      organizations: [{ name: 'Founders Inc', role: 'OWNER' }],
    });
    await caller.auth.signIn({ email: 'founder@example.com', password: 'a long enough password' });
    expect(ctx.cookies.dds_session).not.toBe(firstSession);
    expect(await env.db.prisma.session.count({ where: { userId: signedUp.userId } })).toBe(1);
    await caller.auth.signOut();
    await expect(caller.auth.me()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('a wrong password and an unknown email get the same answer', async () => {
    const { caller } = callerFor(env.deps);
    const wrong = await caller.auth
      .signIn({ email: 'founder@example.com', password: 'nope nope nope' })
      .catch((e) => e);
    const unknown = await caller.auth
      .signIn({ email: 'ghost@example.com', password: 'nope nope nope' })
      .catch((e) => e);
    expect(wrong.code).toBe('UNAUTHORIZED');
    expect(unknown.code).toBe('UNAUTHORIZED');
    expect(unknown.message).toBe(wrong.message);
  });

  it('switches the active organization only to one the user belongs to', async () => {
    const a = await seedOrganization(env.deps, 'switch-a');
    const b = await seedOrganization(env.deps, 'switch-b');
    await env.db.prisma.membership.create({
      data: { id: `mem_${Date.now()}`, userId: a.user.id, organizationId: b.organization.id, role: 'MEMBER' },
    });
    const { caller } = callerFor(env.deps);
    await caller.auth.signIn({ email: a.email, password: 'correct horse battery staple' });
    expect((await caller.auth.me()).organizations).toHaveLength(2);
    await caller.auth.switchOrganization({ organizationId: b.organization.id });
    expect(await caller.auth.me()).toMatchObject({ organizationId: b.organization.id, role: 'MEMBER' });
    const stranger = await seedOrganization(env.deps, 'switch-c');
    await expect(caller.auth.switchOrganization({ organizationId: stranger.organization.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('personal access tokens', () => {
  it('are shown once, listed without the secret, and revoked at once', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const created = await caller.tokens.create({ name: 'ci', expiresInDays: 30 });
    expect(created.token).toMatch(/^dds_pat_[0-9A-Za-z]{38}$/);
    expect(created.prefix).toBe(created.token.slice(0, 14));
    const listed = await caller.tokens.list();
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(listed.find((t) => t.id === created.id)).toMatchObject({ name: 'ci', revokedAt: null });
    const stored = await env.db.prisma.personalAccessToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(stored.tokenHash).not.toContain(created.token);
    await callerFor(env.deps, { pat: created.token }).caller.auth.me();
    await caller.tokens.revoke({ tokenId: created.id });
    await expect(callerFor(env.deps, { pat: created.token }).caller.auth.me()).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const other = await seedOrganization(env.deps);
    await expect(
      callerFor(env.deps, { pat: other.pat }).caller.tokens.revoke({ tokenId: created.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('workspaces', () => {
  it('create, rename, reveal and rotate the key, delete with what goes with it', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const ws = await caller.workspaces.create({ name: 'Production' });
    expect(ws.apiKey).toMatch(/^dds_wsk_/);
    expect(JSON.stringify(await caller.workspaces.list())).not.toContain(ws.apiKey);
    expect((await caller.workspaces.revealApiKey({ workspaceId: ws.id })).apiKey).toBe(ws.apiKey);
    const rotated = await caller.workspaces.rotateApiKey({ workspaceId: ws.id });
    expect(rotated.apiKey).not.toBe(ws.apiKey);
    expect((await caller.workspaces.revealApiKey({ workspaceId: ws.id })).apiKey).toBe(rotated.apiKey);
    expect((await caller.workspaces.rename({ workspaceId: ws.id, name: 'Prod EU' })).name).toBe('Prod EU');
    await caller.deletionRequests.createInWorkspace({ workspaceId: ws.id, identifier: 'x@example.com' });
    expect(await caller.workspaces.delete({ workspaceId: ws.id })).toMatchObject({
      deletedRequests: 1,
      deletedIntegrations: 0,
    });
    await expect(caller.workspaces.get({ workspaceId: ws.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const audit = await env.db.prisma.auditLog.findMany({
      where: { organizationId: org.organization.id },
      select: { action: true },
    });
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining([
        'workspace.created',
        'workspace.api_key_rotated',
        'workspace.renamed',
        'workspace.deleted',
      ]),
    );
  });

  it('validates names', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await expect(caller.workspaces.create({ name: '   ' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('accounts', () => {
  it('never return credentials, show hints, and refuse deletion while in use', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const account = await caller.accounts.create({
      name: 'hooks',
      integrationType: 'WEBHOOK',
      type: 'KEY_VALUE',
      secrets: { token: 'abcdefghijklmnop-secret-1234' },
    });
    expect(JSON.stringify(account)).not.toContain('abcdefghijklmnop-secret-1234');
    expect(account.secretHints).toEqual({ token: '••••1234' });
    const stored = await env.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    expect(stored.secretCipher).not.toContain('secret');
    const integration = await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      accountId: account.id,
      config: { initiate: { url: 'http://127.0.0.1:1/x' } },
    });
    await expect(caller.accounts.delete({ accountId: account.id })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('"CRM"'),
    });
    await caller.accounts.update({ accountId: account.id, secrets: { token: 'replacement-secret-value-9876' } });
    expect((await caller.accounts.get({ accountId: account.id })).secretHints).toEqual({ token: '••••9876' });
    await caller.integrations.delete({ integrationId: integration.id });
    await caller.accounts.delete({ accountId: account.id });
  });

  it('validate credentials by account type and the account type by integration type', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await expect(
      caller.accounts.create({
        name: 'db',
        integrationType: 'POSTGRES',
        type: 'DATABASE',
        secrets: { host: '127.0.0.1' },
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      caller.accounts.create({ name: 'db', integrationType: 'POSTGRES', type: 'API_KEY', secrets: { apiKey: 'k' } }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('refuse database hosts and webhook URLs the outbound policy blocks, at save time', async () => {
    const strictEnv = await createTestEnv({ OUTBOUND_ALLOWLIST: '' });
    try {
      const org = await seedOrganization(strictEnv.deps);
      const { caller } = callerFor(strictEnv.deps, { pat: org.pat });
      await expect(
        caller.accounts.create({
          name: 'meta',
          integrationType: 'POSTGRES',
          type: 'DATABASE',
          secrets: { host: '169.254.169.254', database: 'x', user: 'u' },
        }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(
        caller.integrations.create({
          workspaceId: org.workspace.id,
          name: 'local',
          type: 'WEBHOOK',
          config: { initiate: { url: 'http://127.0.0.1:8080/admin' } },
        }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      // A URL setting whose key does not end in "url" (Braze's REST endpoint) is checked at save as well.
      const braze = await caller.accounts.create({
        name: 'braze',
        integrationType: 'BRAZE',
        type: 'API_KEY',
        secrets: { apiKey: 'key' },
      });
      for (const restEndpoint of ['http://169.254.169.254', 'http://127.0.0.1:8080', 'http://10.0.0.7'])
        await expect(
          caller.integrations.create({
            workspaceId: org.workspace.id,
            name: 'braze',
            type: 'BRAZE',
            accountId: braze.id,
            config: { restEndpoint },
          }),
          restEndpoint,
        ).rejects.toMatchObject({
          code: 'BAD_REQUEST',
          cause: { details: { issues: [{ path: ['config', 'restEndpoint'] }] } },
        });
    } finally {
      await strictEnv.close();
    }
  });
});

describe('organization', () => {
  it('owners rename it; members cannot', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    expect((await caller.organization.rename({ name: 'Renamed' })).name).toBe('Renamed');
    expect((await caller.organization.get()).name).toBe('Renamed');
    await env.db.prisma.membership.updateMany({ where: { userId: org.user.id }, data: { role: 'MEMBER' } });
    // A write behind the services' back: processes learn of it from the database's notification
    // (pat-cache.test.ts); here the verified token is forgotten at once, as the services do.
    forgetVerifiedTokens(env.db.prisma);
    await expect(caller.organization.rename({ name: 'Nope' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(caller.workspaces.create({ name: 'Nope' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(
      await caller.deletionRequests.createInWorkspace({
        workspaceId: org.workspace.id,
        identifier: 'member@example.com',
      }),
    ).toMatchObject({ channel: 'API' });
  });
});
