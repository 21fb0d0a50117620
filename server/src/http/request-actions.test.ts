import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../test/engine';
import { startWebhookServer, type WebhookServer } from '../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { expectError, restClient } from '../test/rest';

/**
 * The REST paths of every action on a deletion request (read one, audit trail, cancel, retry,
 * check status, and the per-integration-request variants). Every response is checked against
 * the OpenAPI document by `restClient`. No worker runs until the last suite: requests stay
 * STAGING unless a test moves them.
 */
let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let rest: ReturnType<typeof restClient>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;
let hooks: WebhookServer;
let integrationId: string;

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  server = await startTestServer(env.deps);
  rest = restClient(server.baseUrl);
  hooks = await startWebhookServer();
  org = await seedOrganization(env.deps, 'actions');
  other = await seedOrganization(env.deps, 'actions-other');
  const integration = await owner().integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: `${hooks.url}/erase` } },
  });
  integrationId = integration.id;
  await callerFor(env.deps, { pat: other.pat }).caller.integrations.create({
    workspaceId: other.workspace.id,
    name: 'Other CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: `${hooks.url}/erase` } },
  });
});
afterAll(async () => {
  await server?.close();
  await hooks?.close();
  await env?.close();
});

const owner = () => callerFor(env.deps, { pat: org.pat }).caller;
const auth = (pat = org.pat, extra: Record<string, string> = {}) => ({ 'x-api-key': pat, ...extra });

type Created = { id: string; integrationRequests: { id: string }[] };

async function createRequest(identifier: string, who = org): Promise<Created> {
  const response = await rest.post(
    '/api/public/deletion-requests',
    { workspaceApiKey: who.workspaceApiKey, identifier },
    auth(who.pat),
  );
  expect(response.status).toBe(201);
  return response.json();
}

/** A request whose one integration request has FAILED (as a worker would leave it after a refusal). */
async function failedRequest(identifier: string, who = org): Promise<Created> {
  const created = await createRequest(identifier, who);
  await env.db.prisma.integrationRequest.updateMany({
    where: { deletionRequestId: created.id },
    data: { status: 'FAILED', lastError: 'HTTP 401: invalid token', nextAttemptAt: null, completedAt: new Date() },
  });
  await env.db.prisma.deletionRequest.update({
    where: { id: created.id },
    data: { status: 'FAILED', completedAt: new Date() },
  });
  return created;
}

const base = (id: string) => `/api/public/deletion-requests/${id}`;
const irPath = (created: Created, action: string) =>
  `${base(created.id)}/integration-requests/${created.integrationRequests[0]!.id}/${action}`;
const UNKNOWN_DR = 'dr_0000000000000000000a';
const UNKNOWN_IR = 'ir_0000000000000000000a';

describe('GET /deletion-requests/{id}', () => {
  it('answers the request with its integration requests', async () => {
    const created = await createRequest('one@example.com');
    const response = await rest.get(base(created.id), auth());
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: created.id,
      identifier: 'one@example.com',
      status: 'STAGING',
      integrationRequests: [
        { id: created.integrationRequests[0]!.id, name: 'CRM', type: 'WEBHOOK', status: 'STAGING' },
      ],
    });
  });

  it('redacts a hashed identifier unless fetchHashed=false', async () => {
    const created = await createRequest('hashed@example.com');
    await env.db.prisma.deletionRequest.update({
      where: { id: created.id },
      data: { identifier: 'hmac:feed', hashed: true },
    });
    expect(await (await rest.get(base(created.id), auth())).json()).toMatchObject({
      identifier: '[redacted]',
      hashed: true,
    });
    expect(await (await rest.get(`${base(created.id)}?fetchHashed=false`, auth())).json()).toMatchObject({
      identifier: 'hmac:feed',
      hashed: true,
    });
    await expectError(await rest.get(`${base(created.id)}?fetchHashed=yes`, auth()), 400, 'BAD_REQUEST');
  });

  it("400 for a malformed id, 404 for an unknown one and for another organization's, 401 without a token, 403 without requests:read", async () => {
    const created = await createRequest('errors@example.com');
    const malformed = await expectError(await rest.get(base('not-an-id'), auth()), 400, 'BAD_REQUEST');
    expect(malformed.issues).toEqual([expect.objectContaining({ path: ['deletionRequestId'] })]);
    await expectError(await rest.get(base('ir_0000000000000000000a'), auth()), 400, 'BAD_REQUEST');
    await expectError(await rest.get(base(UNKNOWN_DR), auth()), 404, 'NOT_FOUND');
    const foreign = await rest.get(base(created.id), auth(other.pat));
    expect(await foreign.clone().text()).not.toContain('errors@example.com');
    await expectError(foreign, 404, 'NOT_FOUND');
    await expectError(await rest.get(base(created.id)), 401, 'UNAUTHORIZED');
    const writer = await owner().tokens.create({ name: 'writer', scopes: ['requests:write'] });
    expect(
      (await expectError(await rest.get(base(created.id), auth(writer.token)), 403, 'FORBIDDEN')).message,
    ).toContain('"requests:read"');
  });

  it('403 for a token limited to another workspace', async () => {
    const second = await owner().workspaces.create({ name: 'second' });
    const limited = await owner().tokens.create({ name: 'second only', workspaceIds: [second.id] });
    const created = await createRequest('elsewhere@example.com');
    expect(
      (await expectError(await rest.get(base(created.id), auth(limited.token)), 403, 'FORBIDDEN')).message,
    ).toContain(org.workspace.id);
    await expectError(await rest.post(`${base(created.id)}/cancel`, {}, auth(limited.token)), 403, 'FORBIDDEN');
  });
});

describe('GET /deletion-requests/{id}/audit-trail', () => {
  it('answers the trail oldest first, paginated through the Link header', async () => {
    const created = await createRequest('trail@example.com');
    for (let i = 0; i < 3; i++) expect((await rest.post(irPath(created, 'check-status'), {}, auth())).status).toBe(200);
    const all = await (await rest.get(`${base(created.id)}/audit-trail`, auth())).json();
    expect(all.map((e: { action: string }) => e.action)).toEqual([
      'request.created',
      'deletion.check_requested',
      'deletion.check_requested',
      'deletion.check_requested',
    ]);
    const seen: string[] = [];
    let url: string | null = `${base(created.id)}/audit-trail?limit=3`;
    let pages = 0;
    while (url) {
      const response = await rest.get(url.replace(/^https?:\/\/[^/]+/, ''), auth());
      expect(response.status).toBe(200);
      seen.push(...(await response.json()).map((e: { id: string }) => e.id));
      const link = response.headers.get('link');
      url = link ? /<([^>]+)>; rel="next"/.exec(link)![1]! : null;
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual(all.map((e: { id: string }) => e.id));
  });

  it('400 for a bad limit, cursor or id; 404 unknown and cross-organization; 401; 403 without requests:read', async () => {
    const created = await createRequest('trail-errors@example.com');
    await expectError(await rest.get(`${base(created.id)}/audit-trail?limit=0`, auth()), 400, 'BAD_REQUEST');
    await expectError(await rest.get(`${base(created.id)}/audit-trail?cursor=abc`, auth()), 400, 'BAD_REQUEST');
    await expectError(await rest.get(`${base('dr_NOPE')}/audit-trail`, auth()), 400, 'BAD_REQUEST');
    await expectError(await rest.get(`${base(UNKNOWN_DR)}/audit-trail`, auth()), 404, 'NOT_FOUND');
    await expectError(await rest.get(`${base(created.id)}/audit-trail`, auth(other.pat)), 404, 'NOT_FOUND');
    await expectError(await rest.get(`${base(created.id)}/audit-trail`), 401, 'UNAUTHORIZED');
    const writer = await owner().tokens.create({ name: 'trail writer', scopes: ['requests:write'] });
    await expectError(await rest.get(`${base(created.id)}/audit-trail`, auth(writer.token)), 403, 'FORBIDDEN');
  });
});

describe('POST actions on a deletion request', () => {
  it('cancel: cancels what was not sent yet and answers the request as it is now', async () => {
    const created = await createRequest('cancel@example.com');
    const response = await rest.post(`${base(created.id)}/cancel`, {}, auth());
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      integrationRequestIds: [created.integrationRequests[0]!.id],
      refused: [],
      message: '1 integration request canceled',
      deletionRequest: { id: created.id, status: 'CANCELED', integrationRequests: [{ status: 'CANCELED' }] },
    });
    await expectError(await rest.post(`${base(created.id)}/cancel`, {}, auth()), 409, 'CONFLICT');
  });

  it('cancel works without a body too', async () => {
    const created = await createRequest('no-body@example.com');
    const response = await rest.request(`${base(created.id)}/cancel`, { method: 'POST', headers: auth() });
    expect(response.status).toBe(200);
    // A body that is not JSON is still refused.
    await expectError(
      await rest.request(`${base(created.id)}/check-status`, {
        method: 'POST',
        headers: auth(org.pat, { 'content-type': 'text/plain' }),
        body: 'now',
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('retry: sends a failed integration request again with the submitted or the current configuration', async () => {
    const submitted = await failedRequest('retry-submitted@example.com');
    const response = await rest.post(`${base(submitted.id)}/retry`, {}, auth());
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      integrationRequestIds: [submitted.integrationRequests[0]!.id],
      message: expect.stringContaining('submitted'),
      deletionRequest: {
        status: 'STAGING',
        integrationRequests: [{ status: 'STAGING', attempts: 0, lastError: null }],
      },
    });

    // Both submitted before the integration was fixed.
    const current = await failedRequest('retry-current@example.com');
    const stale = await failedRequest('retry-stale@example.com');
    await owner().integrations.update({
      integrationId,
      name: 'CRM (fixed)',
      config: { initiate: { url: `${hooks.url}/erase-v2` } },
    });
    const answer = await (await rest.post(`${base(current.id)}/retry`, { configuration: 'current' }, auth())).json();
    expect(answer).toMatchObject({
      message: expect.stringContaining('current'),
      deletionRequest: { integrationRequests: [{ name: 'CRM (fixed)', status: 'STAGING' }] },
    });
    const snapshot = async (c: Created) =>
      (
        await env.db.prisma.integrationRequest.findUniqueOrThrow({
          where: { id: c.integrationRequests[0]!.id },
          select: { configSnapshot: { select: { config: true } } },
        })
      ).configSnapshot.config;
    expect(await snapshot(current)).toMatchObject({ initiate: { url: `${hooks.url}/erase-v2` } });
    expect((await rest.post(`${base(stale.id)}/retry`, { configuration: 'submitted' }, auth())).status).toBe(200);
    expect(await snapshot(stale)).toMatchObject({ initiate: { url: `${hooks.url}/erase` } });
    const trail = await (await rest.get(`${base(current.id)}/audit-trail`, auth())).json();
    expect(trail.find((e: { action: string }) => e.action === 'deletion.retried')).toMatchObject({
      summary: expect.stringContaining('current configuration'),
      details: { configuration: 'current' },
    });
  });

  it('retry: 409 when nothing failed, or when the current configuration is of a disabled integration; 400 for an unknown configuration', async () => {
    const running = await createRequest('retry-running@example.com');
    await expectError(await rest.post(`${base(running.id)}/retry`, {}, auth()), 409, 'CONFLICT');
    const failed = await failedRequest('retry-disabled@example.com');
    await expectError(
      await rest.post(`${base(failed.id)}/retry`, { configuration: 'latest' }, auth()),
      400,
      'BAD_REQUEST',
    );
    await owner().integrations.setEnabled({ integrationId, enabled: false });
    try {
      const refused = await expectError(
        await rest.post(`${base(failed.id)}/retry`, { configuration: 'current' }, auth()),
        409,
        'CONFLICT',
      );
      expect(refused.message).toMatch(/disabled/);
      expect(
        (await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: failed.integrationRequests[0]!.id } }))
          .status,
      ).toBe('FAILED');
    } finally {
      await owner().integrations.setEnabled({ integrationId, enabled: true });
    }
  });

  it('check-status: brings every unfinished integration request forward; 409 once finished', async () => {
    const created = await createRequest('check@example.com');
    const response = await rest.post(`${base(created.id)}/check-status`, {}, auth());
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      integrationRequestIds: [created.integrationRequests[0]!.id],
      message: 'Status check requested for 1 integration request',
    });
    const failed = await failedRequest('check-finished@example.com');
    await expectError(await rest.post(`${base(failed.id)}/check-status`, {}, auth()), 409, 'CONFLICT');
  });

  it.each(['cancel', 'retry', 'check-status'])(
    '%s: 400 malformed id, 404 unknown and cross-organization, 401, 403 for a read-only token; nothing changes',
    async (action) => {
      const created = await createRequest(`${action}-errors@example.com`);
      await expectError(await rest.post(`${base('12345')}/${action}`, {}, auth()), 400, 'BAD_REQUEST');
      await expectError(await rest.post(`${base(UNKNOWN_DR)}/${action}`, {}, auth()), 404, 'NOT_FOUND');
      await expectError(await rest.post(`${base(created.id)}/${action}`, {}, auth(other.pat)), 404, 'NOT_FOUND');
      await expectError(await rest.post(`${base(created.id)}/${action}`, {}), 401, 'UNAUTHORIZED');
      const reader = await owner().tokens.create({ name: `${action} reader`, scopes: ['requests:read'] });
      expect(
        (await expectError(await rest.post(`${base(created.id)}/${action}`, {}, auth(reader.token)), 403, 'FORBIDDEN'))
          .message,
      ).toContain('"requests:write"');
      const after = await env.db.prisma.integrationRequest.findUniqueOrThrow({
        where: { id: created.integrationRequests[0]!.id },
      });
      expect(after.status).toBe('STAGING');
      expect(await env.db.prisma.auditLog.count({ where: { deletionRequestId: created.id } })).toBe(1);
    },
  );
});

describe('POST actions on one integration request', () => {
  it('cancel, retry and check-status act on the one integration request', async () => {
    const running = await createRequest('ir-check@example.com');
    const checked = await rest.post(irPath(running, 'check-status'), {}, auth());
    expect(checked.status).toBe(200);
    expect(await checked.json()).toMatchObject({
      integrationRequestIds: [running.integrationRequests[0]!.id],
      message: 'Immediate attempt requested',
    });
    const canceled = await rest.post(irPath(running, 'cancel'), {}, auth());
    expect(await canceled.json()).toMatchObject({
      message: 'Canceled before the deletion was sent',
      deletionRequest: { status: 'CANCELED' },
    });
    await expectError(await rest.post(irPath(running, 'cancel'), {}, auth()), 409, 'CONFLICT');
    await expectError(await rest.post(irPath(running, 'check-status'), {}, auth()), 409, 'CONFLICT');
    await expectError(await rest.post(irPath(running, 'retry'), {}, auth()), 409, 'CONFLICT');
    const failed = await failedRequest('ir-retry@example.com');
    const retried = await rest.post(irPath(failed, 'retry'), { configuration: 'current' }, auth());
    expect(await retried.json()).toMatchObject({
      deletionRequest: { status: 'STAGING', integrationRequests: [{ status: 'STAGING' }] },
    });
  });

  it.each(['cancel', 'retry', 'check-status'])(
    '%s: 400 malformed ids, 404 unknown, of another request and cross-organization, 401, 403',
    async (action) => {
      const created = await createRequest(`ir-${action}-errors@example.com`);
      const mine = await createRequest(`ir-${action}-sibling@example.com`);
      const foreign = await createRequest(`ir-${action}-foreign@example.com`, other);
      const irId = created.integrationRequests[0]!.id;
      await expectError(
        await rest.post(`${base(created.id)}/integration-requests/nope/${action}`, {}, auth()),
        400,
        'BAD_REQUEST',
      );
      await expectError(
        await rest.post(`${base('nope')}/integration-requests/${irId}/${action}`, {}, auth()),
        400,
        'BAD_REQUEST',
      );
      await expectError(
        await rest.post(`${base(created.id)}/integration-requests/${UNKNOWN_IR}/${action}`, {}, auth()),
        404,
        'NOT_FOUND',
      );
      // The integration request of another of this organization's requests, and another organization's.
      await expectError(
        await rest.post(`${base(mine.id)}/integration-requests/${irId}/${action}`, {}, auth()),
        404,
        'NOT_FOUND',
      );
      await expectError(
        await rest.post(
          `${base(created.id)}/integration-requests/${foreign.integrationRequests[0]!.id}/${action}`,
          {},
          auth(),
        ),
        404,
        'NOT_FOUND',
      );
      await expectError(await rest.post(irPath(created, action), {}, auth(other.pat)), 404, 'NOT_FOUND');
      await expectError(await rest.post(irPath(created, action), {}), 401, 'UNAUTHORIZED');
      const reader = await owner().tokens.create({ name: `ir ${action} reader`, scopes: ['requests:read'] });
      await expectError(await rest.post(irPath(created, action), {}, auth(reader.token)), 403, 'FORBIDDEN');
      expect((await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: irId } })).status).toBe(
        'STAGING',
      );
    },
  );
});

describe('Idempotency-Key on every action', () => {
  const actions: [string, (c: Created) => string, () => Promise<Created>][] = [
    ['cancel', (c) => `${base(c.id)}/cancel`, () => createRequest('idem-cancel@example.com')],
    ['retry', (c) => `${base(c.id)}/retry`, () => failedRequest('idem-retry@example.com')],
    ['check-status', (c) => `${base(c.id)}/check-status`, () => createRequest('idem-check@example.com')],
    ['integration cancel', (c) => irPath(c, 'cancel'), () => createRequest('idem-ir-cancel@example.com')],
    ['integration retry', (c) => irPath(c, 'retry'), () => failedRequest('idem-ir-retry@example.com')],
    ['integration check-status', (c) => irPath(c, 'check-status'), () => createRequest('idem-ir-check@example.com')],
  ];

  it.each(actions)(
    '%s: a replay answers the first answer without acting again; another request with the key is a 422',
    async (_label, path, make) => {
      const created = await make();
      const key = `key-${path(created)}`;
      const first = await rest.post(path(created), {}, auth(org.pat, { 'idempotency-key': key }));
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const entries = await env.db.prisma.auditLog.count({ where: { deletionRequestId: created.id } });
      const replay = await rest.post(path(created), {}, auth(org.pat, { 'idempotency-key': key }));
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual(await first.json());
      // The kept answer holds no subject identifier (the replay reads it from the request).
      const kept = await env.db.prisma.idempotencyKey.findUniqueOrThrow({
        where: { organizationId_userId_key: { organizationId: org.organization.id, userId: org.user.id, key } },
      });
      expect(JSON.stringify(kept.response)).not.toContain('@example.com');
      // Acting again would have written an audit entry (or answered 409 for a finished request).
      expect(await env.db.prisma.auditLog.count({ where: { deletionRequestId: created.id } })).toBe(entries);

      const another = await createRequest(`idem-other-${_label.replace(/ /g, '-')}@example.com`);
      await expectError(
        await rest.post(path(another), {}, auth(org.pat, { 'idempotency-key': key })),
        422,
        'UNPROCESSABLE_CONTENT',
      );
      expect(await env.db.prisma.auditLog.count({ where: { deletionRequestId: another.id } })).toBe(1);
    },
  );

  it("the same key on another action, or another body, is a 422; a key is the user's own", async () => {
    const failed = await failedRequest('idem-body@example.com');
    const headers = auth(org.pat, { 'idempotency-key': 'retry-body' });
    expect((await rest.post(`${base(failed.id)}/retry`, { configuration: 'submitted' }, headers)).status).toBe(200);
    await expectError(
      await rest.post(`${base(failed.id)}/retry`, { configuration: 'current' }, headers),
      422,
      'UNPROCESSABLE_CONTENT',
    );
    await expectError(await rest.post(`${base(failed.id)}/cancel`, {}, headers), 422, 'UNPROCESSABLE_CONTENT');
    // Another user's same key is theirs: it acts.
    const theirs = await createRequest('idem-theirs@example.com', other);
    expect(
      (await rest.post(`${base(theirs.id)}/cancel`, {}, auth(other.pat, { 'idempotency-key': 'retry-body' }))).status,
    ).toBe(200);
  });

  it('a call that fails keeps nothing: the key can be sent again once the request allows it', async () => {
    const running = await createRequest('idem-after-error@example.com');
    const headers = auth(org.pat, { 'idempotency-key': 'after-409' });
    await expectError(await rest.post(`${base(running.id)}/retry`, {}, headers), 409, 'CONFLICT');
    await env.db.prisma.integrationRequest.updateMany({
      where: { deletionRequestId: running.id },
      data: { status: 'FAILED', nextAttemptAt: null },
    });
    expect((await rest.post(`${base(running.id)}/retry`, {}, headers)).status).toBe(200);
  });

  it('concurrent calls with one key act once', async () => {
    const created = await createRequest('idem-burst@example.com');
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        rest.post(`${base(created.id)}/check-status`, {}, auth(org.pat, { 'idempotency-key': 'burst-check' })),
      ),
    );
    // Each answer is the first call's, or a 409 while it was still running.
    for (const response of responses) expect([200, 409]).toContain(response.status);
    expect(
      await env.db.prisma.auditLog.count({
        where: { deletionRequestId: created.id, action: 'deletion.check_requested' },
      }),
    ).toBe(1);
  });

  it('400 for an Idempotency-Key over 255 characters', async () => {
    const created = await createRequest('idem-long@example.com');
    await expectError(
      await rest.post(`${base(created.id)}/cancel`, {}, auth(org.pat, { 'idempotency-key': 'k'.repeat(256) })),
      400,
      'BAD_REQUEST',
    );
  });
});

describe('with a worker', () => {
  it('a request driven to the end over REST: its audit trail shows the call with the account secret redacted', async () => {
    const secret = 'sk_live_super_secret_value_42';
    hooks.on('POST /secured', () => ({ status: 200, body: { ok: true } }));
    const account = await owner().accounts.create({
      name: 'crm key',
      integrationType: 'WEBHOOK',
      type: 'KEY_VALUE',
      secrets: { apiKey: secret },
    });
    const ws = await owner().workspaces.create({ name: 'secured' });
    await owner().integrations.create({
      workspaceId: ws.id,
      name: 'Secured CRM',
      type: 'WEBHOOK',
      accountId: account.id,
      config: {
        initiate: {
          url: `${hooks.url}/secured`,
          headers: { Authorization: 'Bearer {{apiKey}}' },
          body: '{"email":"{{identifier}}","key":"{{apiKey}}"}',
        },
      },
    });
    const created = await (
      await rest.post(
        '/api/public/deletion-requests',
        { workspaceApiKey: ws.apiKey, identifier: 'secured@example.com' },
        auth(),
      )
    ).json();
    const worker = await startTestWorker(env);
    try {
      await waitForRequest(env, created.id, ['SUCCESS']);
    } finally {
      await worker.stop();
    }
    expect(hooks.callsTo('POST /secured')[0]!.headers.authorization).toBe(`Bearer ${secret}`);
    const done = await (await rest.get(base(created.id), auth())).json();
    expect(done).toMatchObject({ status: 'SUCCESS', integrationRequests: [{ status: 'SUCCESS', attempts: 1 }] });
    const response = await rest.get(`${base(created.id)}/audit-trail`, auth());
    const text = await response.text();
    expect(text).toContain('/secured');
    expect(text).not.toContain(secret);
  });
});
