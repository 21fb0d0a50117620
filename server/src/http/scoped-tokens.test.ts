import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { expectError, restClient } from '../test/rest';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let rest: ReturnType<typeof restClient>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let second: { id: string; apiKey: string };

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  rest = restClient(server.baseUrl);
  org = await seedOrganization(env.deps, 'scoped');
  second = await callerFor(env.deps, { pat: org.pat }).caller.workspaces.create({ name: 'second' });
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const owner = () => callerFor(env.deps, { pat: org.pat }).caller;

describe('scoped personal access tokens', () => {
  it('a token without limits (every token made before scopes) keeps full access', async () => {
    const created = await rest.post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'full@example.com' },
      { 'x-api-key': org.pat },
    );
    expect(created.status).toBe(201);
    expect((await rest.get('/api/public/deletion-requests/organization', { 'x-api-key': org.pat })).status).toBe(200);
    const listed = await owner().tokens.list();
    expect(listed.find((t) => t.id === org.patId)).toMatchObject({ scopes: [], workspaceIds: [] });
  });

  it('a read-only token reads, and is refused a write with a 403 naming the missing scope; nothing is written', async () => {
    const token = await owner().tokens.create({ name: 'reader', scopes: ['requests:read'] });
    expect(token).toMatchObject({ scopes: ['requests:read'], workspaceIds: [] });
    expect((await rest.get('/api/public/deletion-requests/organization', { 'x-api-key': token.token })).status).toBe(
      200,
    );
    const before = await env.db.prisma.deletionRequest.count();
    const refused = await expectError(
      await rest.post(
        '/api/public/deletion-requests',
        { workspaceApiKey: org.workspaceApiKey, identifier: 'nope@example.com' },
        { 'x-api-key': token.token },
      ),
      403,
      'FORBIDDEN',
    );
    expect(refused.message).toContain('"requests:write"');
    expect(await env.db.prisma.deletionRequest.count()).toBe(before);
    const check = await expectError(
      await rest.post('/api/public/erasure-checks', { identifier: 'a@b.c' }, { 'x-api-key': token.token }),
      403,
      'FORBIDDEN',
    );
    expect(check.message).toContain('"erasure-checks:read"');
  });

  it('a write-only token cannot list', async () => {
    const token = await owner().tokens.create({ name: 'writer', scopes: ['requests:write'] });
    const created = await rest.post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'w@example.com' },
      { 'x-api-key': token.token },
    );
    expect(created.status).toBe(201);
    const refused = await expectError(
      await rest.get('/api/public/deletion-requests/organization', { 'x-api-key': token.token }),
      403,
      'FORBIDDEN',
    );
    expect(refused.message).toContain('"requests:read"');
  });

  it('a scoped token cannot manage the organization or mint a wider token (dashboard procedures need no limits)', async () => {
    const token = await owner().tokens.create({ name: 'narrow', scopes: ['requests:read', 'requests:write'] });
    const { caller } = callerFor(env.deps, { pat: token.token });
    await expect(caller.tokens.create({ name: 'escalate' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(caller.workspaces.create({ name: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(caller.tokens.list()).rejects.toThrow(/needs a token without limits/);
  });

  it('a token limited to workspaces only (no scopes) cannot mint a wider token or reach past its workspaces', async () => {
    const token = await owner().tokens.create({ name: 'ws-only-no-scopes', workspaceIds: [second.id] });
    const { caller } = callerFor(env.deps, { pat: token.token });
    const elsewhere = await owner().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'elsewhere@example.com',
    });
    await expect(caller.tokens.create({ name: 'escalate' })).rejects.toThrow(/limited to some workspaces/);
    await expect(caller.dashboard.revealIdentifier({ deletionRequestId: elsewhere.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(caller.workspaces.revealApiKey({ workspaceId: org.workspace.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    // Its own workspace's requests, through the procedures that take scoped tokens, still work.
    await expect(
      caller.deletionRequests.createInWorkspace({ workspaceId: second.id, identifier: 'mine@example.com' }),
    ).resolves.toBeDefined();
  });

  it('a token limited to a workspace creates and lists only there, 403 for another workspace', async () => {
    const token = await owner().tokens.create({ name: 'ws-only', workspaceIds: [second.id] });
    const headers = { 'x-api-key': token.token };
    const ok = await rest.post(
      '/api/public/deletion-requests',
      { workspaceApiKey: second.apiKey, identifier: 'second@example.com' },
      headers,
    );
    expect(ok.status).toBe(201);
    const refused = await expectError(
      await rest.post(
        '/api/public/deletion-requests',
        { workspaceApiKey: org.workspaceApiKey, identifier: 'first@example.com' },
        headers,
      ),
      403,
      'FORBIDDEN',
    );
    expect(refused.message).toContain(org.workspace.id);
    const listed = await (await rest.get('/api/public/deletion-requests/organization', headers)).json();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((r: { workspaceId: string }) => r.workspaceId === second.id)).toBe(true);
    await expectError(
      await rest.get(`/api/public/deletion-requests/workspace/${org.workspace.id}`, headers),
      403,
      'FORBIDDEN',
    );
    expect((await rest.get(`/api/public/deletion-requests/workspace/${second.id}`, headers)).status).toBe(200);
    const byUser = await (await rest.get(`/api/public/deletion-requests/user/${org.user.id}`, headers)).json();
    expect(byUser.every((r: { workspaceId: string }) => r.workspaceId === second.id)).toBe(true);
  });

  it("refuses another organization's workspace and unknown scopes when a token is made", async () => {
    const other = await seedOrganization(env.deps, 'other');
    await expect(owner().tokens.create({ name: 'x', workspaceIds: [other.workspace.id] })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(owner().tokens.create({ name: 'x', scopes: ['everything' as never] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('the audit log records the scopes a token was made with', async () => {
    const token = await owner().tokens.create({ name: 'audited', scopes: ['callbacks:manage'] });
    const entry = await env.db.prisma.auditLog.findFirstOrThrow({
      where: { action: 'pat.created', details: { path: ['tokenId'], equals: token.id } },
    });
    expect(entry.details).toMatchObject({ scopes: ['callbacks:manage'], workspaceIds: [] });
  });
});
