import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_ACTION_MAX } from '@shared/schemas/bulk-actions';
import { ID_PREFIX, newId } from '../../lib/ids';
import { createSession } from '../../services/auth/sessions';
import { createPersonalAccessToken } from '../../services/tokens/personal-access-tokens';
import { createWorkspace } from '../../services/workspaces/workspaces';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { startWebhookServer, type WebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { expectError, restClient } from '../../test/rest';

let env: TestEnv;
let hooks: WebhookServer;
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  hooks = await startWebhookServer();
  // The destination refuses "reject@…" for good (a 4xx fails at once) and deletes everyone else.
  hooks.on('POST /erase', (call) =>
    JSON.parse(call.body).email.startsWith('reject')
      ? { status: 422, body: { message: 'unknown subject' } }
      : { status: 204 },
  );
});
afterAll(async () => {
  await worker?.stop();
  await hooks?.close();
  await env?.close();
});

async function setup(label?: string) {
  const org = await seedOrganization(env.deps, label);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const connect = (workspaceId: string) =>
    caller.integrations.create({
      workspaceId,
      name: 'Internal CRM',
      type: 'WEBHOOK',
      accountId: null,
      config: {
        mode: 'sync',
        initiate: { method: 'POST', url: `${hooks.url}/erase`, body: '{"email":"{{identifier}}"}' },
      },
    });
  await connect(org.workspace.id);
  const submit = (identifier: string, workspaceId = org.workspace.id) =>
    caller.deletionRequests.createInWorkspace({ workspaceId, identifier });
  return { org, caller, submit, connect };
}

async function errorCode(promise: Promise<unknown>) {
  try {
    await promise;
    return 'OK';
  } catch (error) {
    return error instanceof TRPCError ? error.code : String(error);
  }
}

const statusOf = async (id: string) =>
  (await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id } })).status;

describe('bulk cancel (no worker running: requests wait to be sent)', () => {
  it('cancels the unfinished requests and skips the finished one, with the reason; each is audited', async () => {
    const { org, caller, submit } = await setup();
    const [a, b, finished] = [
      await submit('a@example.com'),
      await submit('b@example.com'),
      await submit('c@example.com'),
    ];
    await caller.deletionRequests.cancel({ deletionRequestId: finished.id });

    const result = await caller.deletionRequests.bulkCancel({ deletionRequestIds: [a.id, finished.id, b.id] });

    expect(result).toMatchObject({
      action: 'cancel',
      matched: 3,
      succeeded: 2,
      skipped: 1,
      message: '2 requests canceled, 1 skipped',
    });
    expect(result.items.map((item) => [item.deletionRequestId, item.outcome])).toEqual([
      [a.id, 'canceled'],
      [finished.id, 'skipped'],
      [b.id, 'canceled'],
    ]);
    expect(result.items[1]!.reason).toBe('This request has finished; nothing to cancel');
    expect(result.items[0]!.integrationRequestIds).toEqual([a.integrationRequests![0]!.id]);
    expect([await statusOf(a.id), await statusOf(b.id)]).toEqual(['CANCELED', 'CANCELED']);

    const audit = await env.db.prisma.auditLog.findMany({
      where: { organizationId: org.organization.id },
      orderBy: { id: 'asc' },
    });
    // The single cancel's own entries for each request canceled, then one for the bulk action.
    expect(audit.filter((e) => e.action === 'request.canceled' && e.deletionRequestId === a.id)).toHaveLength(1);
    expect(
      audit.filter((e) => e.action === 'deletion.cancel' && e.deletionRequestId === b.id && e.outcome === 'CANCELED'),
    ).toHaveLength(1);
    const bulk = audit.filter((e) => e.action === 'request.bulk_cancel');
    expect(bulk).toHaveLength(1);
    expect(bulk[0]).toMatchObject({
      actorId: org.user.id,
      deletionRequestId: null,
      summary: 'Bulk cancel of 3 requests: 2 requests canceled, 1 skipped',
    });
  });

  it('acts on every request a filter matches, and never stores the identifier it searched for', async () => {
    const { org, caller, submit, connect } = await setup();
    const other = await createWorkspace(env.deps.prisma, env.deps.keyring, org.actor, { name: 'Other' });
    await connect(other.id);
    const inScope = [await submit('f1@example.com'), await submit('f2@example.com')];
    const elsewhere = await submit('f3@example.com', other.id);

    expect(await caller.deletionRequests.countMatching({ filter: { workspaceId: org.workspace.id } })).toEqual({
      count: 2,
      more: false,
      max: BULK_ACTION_MAX,
    });
    const result = await caller.deletionRequests.bulkCancel({
      filter: { workspaceId: org.workspace.id, statuses: ['STAGING'] },
    });
    expect(result.items.map((item) => item.deletionRequestId).sort()).toEqual(inScope.map((r) => r.id).sort());
    expect(result.items.every((item) => item.outcome === 'canceled')).toBe(true);
    expect(await statusOf(elsewhere.id)).toBe('STAGING');

    const byIdentifier = await caller.deletionRequests.bulkCancel({ filter: { identifier: 'f3@example.com' } });
    expect(byIdentifier.items.map((item) => [item.deletionRequestId, item.outcome])).toEqual([
      [elsewhere.id, 'canceled'],
    ]);
    const entry = await env.db.prisma.auditLog.findFirstOrThrow({
      where: { organizationId: org.organization.id, action: 'request.bulk_cancel' },
      orderBy: { id: 'desc' },
    });
    expect(JSON.stringify([entry.summary, entry.details])).not.toContain('f3@example.com');
    expect(entry.details).toMatchObject({ identifierSearch: true });
  });
});

describe('the bulk action in the audit log', () => {
  const bulkEntries = async (caller: ReturnType<typeof callerFor>['caller'], workspaceId?: string) =>
    (
      await caller.dashboard.auditLog({
        limit: 100,
        filter: { actions: ['request.bulk_cancel'], ...(workspaceId ? { workspaceId } : {}) },
      })
    ).items;

  it("names the workspace when every request is in one, so the workspace's filter shows it", async () => {
    const { org, caller, submit, connect } = await setup();
    const other = await createWorkspace(env.deps.prisma, env.deps.keyring, org.actor, { name: 'Other' });
    await connect(other.id);
    const [a, b] = [await submit('w1@example.com'), await submit('w2@example.com')];

    await caller.deletionRequests.bulkCancel({ deletionRequestIds: [a.id, b.id] });

    const [entry] = await bulkEntries(caller);
    expect(entry).toMatchObject({
      deletionRequestId: null,
      summary: 'Bulk cancel of 2 requests: 2 requests canceled',
      details: { workspaceId: org.workspace.id },
    });
    expect((await bulkEntries(caller, org.workspace.id)).map((e) => e.id)).toEqual([entry!.id]);
    expect(await bulkEntries(caller, other.id)).toEqual([]);
  });

  it('keeps requests of several workspaces at the organization, saying how many workspaces', async () => {
    const { org, caller, submit, connect } = await setup();
    const other = await createWorkspace(env.deps.prisma, env.deps.keyring, org.actor, { name: 'Other' });
    await connect(other.id);
    const here = await submit('s1@example.com');
    const there = [await submit('s2@example.com', other.id), await submit('s3@example.com', other.id)];

    await caller.deletionRequests.bulkCancel({ filter: { statuses: ['STAGING'] } });

    const [entry] = await bulkEntries(caller);
    expect(entry).toMatchObject({
      deletionRequestId: null,
      summary: 'Bulk cancel of 3 requests across 2 workspaces: 3 requests canceled',
      details: { workspaceCount: 2, workspaceIds: [org.workspace.id, other.id].sort() },
    });
    expect((entry!.details as Record<string, unknown>).workspaceId).toBeUndefined();
    expect(await bulkEntries(caller, org.workspace.id)).toEqual([]);
    expect(await bulkEntries(caller, other.id)).toEqual([]);
    // Each request's own entries stay under its workspace.
    const underOther = await caller.dashboard.auditLog({ limit: 100, filter: { workspaceId: other.id } });
    expect(new Set(underOther.items.map((e) => e.deletionRequestId).filter(Boolean))).toEqual(
      new Set(there.map((r) => r.id)),
    );
    expect(underOther.items.some((e) => e.deletionRequestId === here.id)).toBe(false);
  });
});

describe('bulk retry', () => {
  beforeAll(async () => {
    worker = await startTestWorker(env);
  });

  it('retries the failed requests and skips the ones with nothing failed, saying why', async () => {
    const { org, caller, submit } = await setup();
    const failed = await submit('reject-1@example.com');
    const succeeded = await submit('ok@example.com');
    expect((await waitForRequest(env, failed.id)).status).toBe('FAILED');
    expect((await waitForRequest(env, succeeded.id)).status).toBe('SUCCESS');

    const result = await caller.deletionRequests.bulkRetry({ deletionRequestIds: [failed.id, succeeded.id] });

    expect(result).toMatchObject({
      action: 'retry',
      matched: 2,
      succeeded: 1,
      skipped: 1,
      message: '1 request retried, 1 skipped',
    });
    expect(result.items).toEqual([
      {
        deletionRequestId: failed.id,
        outcome: 'retried',
        integrationRequestIds: [failed.integrationRequests![0]!.id],
        reason: null,
      },
      {
        deletionRequestId: succeeded.id,
        outcome: 'skipped',
        integrationRequestIds: [],
        reason: 'Nothing to retry: no integration request of this deletion request has failed',
      },
    ]);
    const retried = await env.db.prisma.auditLog.findMany({
      where: { organizationId: org.organization.id, action: 'deletion.retried' },
    });
    expect(retried.map((e) => e.deletionRequestId)).toEqual([failed.id]);
    // The destination still refuses the subject: the retry ran, and failed again.
    expect((await waitForRequest(env, failed.id)).status).toBe('FAILED');
  });

  it('retries every failed request a filter matches', async () => {
    const { caller, submit } = await setup();
    const failed = [await submit('reject-2@example.com'), await submit('reject-3@example.com')];
    const fine = await submit('fine@example.com');
    for (const request of [...failed, fine]) await waitForRequest(env, request.id);

    const result = await caller.deletionRequests.bulkRetry({ filter: { statuses: ['FAILED'] } });
    expect(result.items.map((item) => item.deletionRequestId).sort()).toEqual(failed.map((r) => r.id).sort());
    expect(result.items.every((item) => item.outcome === 'retried')).toBe(true);
  });

  it('refuses ids of another organization as a whole: nothing is done, and nothing is said about them', async () => {
    const mine = await setup();
    const theirs = await setup();
    const own = await mine.submit('reject-4@example.com');
    const foreign = await theirs.submit('reject-5@example.com');
    await waitForRequest(env, own.id);
    await waitForRequest(env, foreign.id);

    expect(await errorCode(mine.caller.deletionRequests.bulkRetry({ deletionRequestIds: [own.id, foreign.id] }))).toBe(
      'NOT_FOUND',
    );
    expect(await errorCode(mine.caller.deletionRequests.bulkCancel({ deletionRequestIds: [foreign.id] }))).toBe(
      'NOT_FOUND',
    );
    expect([await statusOf(own.id), await statusOf(foreign.id)]).toEqual(['FAILED', 'FAILED']);
    // A filter only ever reaches the caller's own organization.
    const byFilter = await mine.caller.deletionRequests.bulkRetry({ filter: { identifier: 'reject-5@example.com' } });
    expect(byFilter.items).toEqual([]);
    expect(
      await env.db.prisma.auditLog.count({
        where: { organizationId: theirs.org.organization.id, action: 'deletion.retried' },
      }),
    ).toBe(0);
  });

  it('a member may act; a token limited to reading or to another workspace may not', async () => {
    const { org, submit } = await setup();
    const other = await createWorkspace(env.deps.prisma, env.deps.keyring, org.actor, { name: 'Other' });
    const request = await submit('reject-6@example.com');
    await waitForRequest(env, request.id);

    const readOnly = await createPersonalAccessToken(env.deps.prisma, org.actor, {
      name: 'read',
      scopes: ['requests:read'],
    });
    const otherWorkspace = await createPersonalAccessToken(env.deps.prisma, org.actor, {
      name: 'other',
      workspaceIds: [other.id],
    });
    expect(
      await errorCode(
        callerFor(env.deps, { pat: readOnly.token }).caller.deletionRequests.bulkRetry({
          deletionRequestIds: [request.id],
        }),
      ),
    ).toBe('FORBIDDEN');
    const limited = callerFor(env.deps, { pat: otherWorkspace.token }).caller;
    expect(await errorCode(limited.deletionRequests.bulkRetry({ deletionRequestIds: [request.id] }))).toBe('FORBIDDEN');
    expect(await errorCode(limited.deletionRequests.bulkRetry({ filter: { workspaceId: org.workspace.id } }))).toBe(
      'FORBIDDEN',
    );
    // Without naming a workspace, a limited token's filter reaches only its own workspaces.
    expect((await limited.deletionRequests.bulkRetry({ filter: { statuses: ['FAILED'] } })).items).toEqual([]);
    expect(await statusOf(request.id)).toBe('FAILED');

    const memberId = newId(ID_PREFIX.user);
    await env.db.prisma.user.create({
      data: { id: memberId, email: `member-${memberId}@example.com`, name: 'Member', passwordHash: 'x' },
    });
    await env.db.prisma.membership.create({
      data: { id: newId(ID_PREFIX.membership), userId: memberId, organizationId: org.organization.id, role: 'MEMBER' },
    });
    const member = callerFor(env.deps, {
      sessionToken: await createSession(env.db.prisma, memberId, org.organization.id),
    }).caller;
    const result = await member.deletionRequests.bulkRetry({ deletionRequestIds: [request.id] });
    expect(result.items.map((item) => item.outcome)).toEqual(['retried']);
  });

  it('refuses input that names neither or both, or too many', async () => {
    const { caller } = await setup();
    expect(await errorCode(caller.deletionRequests.bulkRetry({}))).toBe('BAD_REQUEST');
    expect(await errorCode(caller.deletionRequests.bulkRetry({ deletionRequestIds: [], filter: {} }))).toBe(
      'BAD_REQUEST',
    );
    const tooMany = Array.from({ length: BULK_ACTION_MAX + 1 }, () => newId(ID_PREFIX.deletionRequest));
    expect(await errorCode(caller.deletionRequests.bulkCancel({ deletionRequestIds: tooMany }))).toBe('BAD_REQUEST');
  });

  it('on the public REST API: one answer per Idempotency-Key, and the one error shape', async () => {
    const { org, submit } = await setup();
    const request = await submit('reject-7@example.com');
    await waitForRequest(env, request.id);
    const server = await startTestServer(env.deps);
    try {
      const rest = restClient(server.baseUrl);
      const headers = { 'X-API-Key': org.pat, 'Idempotency-Key': 'bulk-retry-1' };
      const first = await rest.post(
        '/api/public/deletion-requests/bulk-retry',
        { deletionRequestIds: [request.id] },
        headers,
      );
      expect(first.status).toBe(200);
      const body = await first.json();
      expect(body.items).toEqual([
        {
          deletionRequestId: request.id,
          outcome: 'retried',
          integrationRequestIds: [request.integrationRequests![0]!.id],
          reason: null,
        },
      ]);
      await waitForRequest(env, request.id);
      const again = await rest.post(
        '/api/public/deletion-requests/bulk-retry',
        { deletionRequestIds: [request.id] },
        headers,
      );
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(body);
      expect(
        await env.db.prisma.auditLog.count({ where: { deletionRequestId: request.id, action: 'deletion.retried' } }),
      ).toBe(1);

      await expectError(
        await rest.post('/api/public/deletion-requests/bulk-cancel', {}, { 'X-API-Key': org.pat }),
        400,
        'BAD_REQUEST',
      );
      await expectError(
        await rest.post(
          '/api/public/deletion-requests/bulk-cancel',
          { deletionRequestIds: [newId(ID_PREFIX.deletionRequest)] },
          { 'X-API-Key': org.pat },
        ),
        404,
        'NOT_FOUND',
      );
    } finally {
      await server.close();
    }
  });
});
