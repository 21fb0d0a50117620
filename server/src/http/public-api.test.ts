import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { callerFor } from '../test/harness';
import { createPersonalAccessToken } from '../services/tokens/personal-access-tokens';
import { contractFetch } from '../test/openapi-contract';
import { hashHex, identifierHmac } from '../lib/crypto';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'acme');
  // No worker runs in this file: requests stay queued (STAGING) for their one integration.
  await callerFor(env.deps, { pat: org.pat }).caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

/** Every response is checked against the OpenAPI document (status documented, body matching). */
const api = (path: string, init?: RequestInit) => contractFetch(server.baseUrl)(path, init);

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return api(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const get = (path: string, headers: Record<string, string> = {}) => api(path, { headers });

/** A GET with a body (fetch sends none on a GET), as curl -X GET -d sends it. */
function getWithBody(path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(
      `${server.baseUrl}${path}`,
      {
        method: 'GET',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  const body = await response.json();
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  expect(Object.keys(body).every((k) => ['code', 'message', 'issues'].includes(k))).toBe(true);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
  return body;
}

const countRequests = () => env.db.prisma.deletionRequest.count();

describe('POST /api/public/deletion-requests', () => {
  it('creates a request: 201 with the one deletion request shape, identifier trimmed', async () => {
    const response = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: '  jane@example.com ' },
      { 'x-api-key': org.pat },
    );
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toMatchObject({
      workspaceId: org.workspace.id,
      organizationId: org.organization.id,
      identifier: 'jane@example.com',
      hashed: false,
      status: 'STAGING',
      channel: 'API',
      createdByUserId: org.user.id,
      integrationRequests: [
        expect.objectContaining({ name: 'CRM', type: 'WEBHOOK', status: 'STAGING', attempts: 0, trackingId: null }),
      ],
    });
    expect(body.id).toMatch(/^dr_/);
    expect(new Date(body.createdAt).toString()).not.toBe('Invalid Date');
    const stored = await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: body.id } });
    expect(hashHex(stored.identifierHmac)).toBe(identifierHmac(env.deps.keyring, 'jane@example.com'));
    expect(stored.createdByTokenId).toBe(org.patId);
  });

  it('replays the original response for a repeated Idempotency-Key and refuses a different body', async () => {
    const headers = { 'x-api-key': org.pat, 'idempotency-key': 'partner-42' };
    const first = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'idem@example.com' },
      headers,
    );
    const second = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'idem@example.com' },
      headers,
    );
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await second.json()).id).toBe((await first.json()).id);
    const before = await countRequests();
    const conflicting = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'other@example.com' },
      headers,
    );
    await expectError(conflicting, 422, 'UNPROCESSABLE_CONTENT');
    expect(await countRequests()).toBe(before);
  });

  it('scopes an Idempotency-Key to the organization: a user in two organizations may use one key in each', async () => {
    const other = await seedOrganization(env.deps, 'other');
    await env.db.prisma.membership.create({
      data: {
        id: `mem_${Date.now().toString(36)}x0000000000`,
        userId: org.user.id,
        organizationId: other.organization.id,
        role: 'ADMIN',
      },
    });
    const otherPat = await createPersonalAccessToken(
      env.deps.prisma,
      { userId: org.user.id, organizationId: other.organization.id, role: 'ADMIN', via: 'cli' },
      { name: 'other' },
    );
    const key = { 'idempotency-key': 'shared-key-1' };
    const here = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'two-orgs@example.com' },
      { 'x-api-key': org.pat, ...key },
    );
    const there = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: other.workspaceApiKey, identifier: 'two-orgs@example.com' },
      { 'x-api-key': otherPat.token, ...key },
    );
    expect(here.status).toBe(201);
    expect(there.status).toBe(201);
    const [a, b] = [await here.json(), await there.json()];
    expect(a.organizationId).toBe(org.organization.id);
    expect(b.organizationId).toBe(other.organization.id);
    expect(a.id).not.toBe(b.id);
    // The same holds for the other POSTs (their answers are kept for replays by organization
    // too): the key used in one organization is not a conflicting replay (422) in the other,
    // whose call runs on its own (and finds its request already finished: no integrations).
    const checkHere = await post(
      `/api/public/deletion-requests/${a.id}/check-status`,
      {},
      { 'x-api-key': org.pat, 'idempotency-key': 'shared-key-2' },
    );
    const checkThere = await post(
      `/api/public/deletion-requests/${b.id}/check-status`,
      {},
      { 'x-api-key': otherPat.token, 'idempotency-key': 'shared-key-2' },
    );
    expect(checkHere.status).toBe(200);
    expect(await checkThere.json()).toEqual({
      code: 'CONFLICT',
      message: 'This request has finished; there is no status to check',
    });
    expect(checkThere.headers.get('idempotent-replayed')).toBeNull();
  });

  it('concurrent calls with one Idempotency-Key create one request', async () => {
    const headers = { 'x-api-key': org.pat, 'idempotency-key': 'burst-1' };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        post(
          '/api/public/deletion-requests',
          { workspaceApiKey: org.workspaceApiKey, identifier: 'burst@example.com' },
          headers,
        ),
      ),
    );
    const ids = new Set(
      await Promise.all(responses.map(async (r) => (expect(r.status).toBe(201), (await r.json()).id))),
    );
    expect(ids.size).toBe(1);
  });

  it.each([
    ['missing identifier', { workspaceApiKey: 'x' }],
    ['empty identifier', { workspaceApiKey: 'x', identifier: '   ' }],
    ['identifier of the wrong type', { workspaceApiKey: 'x', identifier: 42 }],
    ['identifier too long', { workspaceApiKey: 'x', identifier: 'a'.repeat(513) }],
    ['missing workspaceApiKey', { identifier: 'a@b.c' }],
    ['an array body', [1, 2]],
  ])('400 with issues for %s, nothing written', async (_label, body) => {
    const before = await countRequests();
    const response = await post('/api/public/deletion-requests', body, { 'x-api-key': org.pat });
    const error = await expectError(response, 400, 'BAD_REQUEST');
    expect(Array.isArray(error.issues)).toBe(true);
    expect(await countRequests()).toBe(before);
  });

  it('400 for malformed JSON, never a 500 or a stack trace', async () => {
    await expectError(
      await post('/api/public/deletion-requests', '{"identifier": ', { 'x-api-key': org.pat }),
      400,
      'BAD_REQUEST',
    );
    await expectError(await post('/api/public/deletion-requests', '', { 'x-api-key': org.pat }), 400, 'BAD_REQUEST');
  });

  it('415 for a body that is not JSON', async () => {
    const response = await api('/api/public/deletion-requests', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': org.pat },
      body: 'identifier=a',
    });
    await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const form = await api('/api/public/deletion-requests', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': org.pat },
      body: 'identifier=a',
    });
    await expectError(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('413 for an oversized body', async () => {
    const response = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'x'.repeat(200_000) },
      { 'x-api-key': org.pat },
    );
    await expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('401 for a missing, malformed, unknown, revoked or expired PAT, nothing written', async () => {
    const body = { workspaceApiKey: org.workspaceApiKey, identifier: 'a@b.c' };
    const before = await countRequests();
    await expectError(await post('/api/public/deletion-requests', body), 401, 'UNAUTHORIZED');
    await expectError(await post('/api/public/deletion-requests', body, { 'x-api-key': 'nope' }), 401, 'UNAUTHORIZED');
    const forged = org.pat.slice(0, -7) + (org.pat.at(-7) === 'a' ? 'b' : 'a') + org.pat.slice(-6);
    await expectError(await post('/api/public/deletion-requests', body, { 'x-api-key': forged }), 401, 'UNAUTHORIZED');

    const { caller } = callerFor(env.deps, { pat: org.pat });
    const doomed = await caller.tokens.create({ name: 'doomed' });
    expect((await post('/api/public/deletion-requests', body, { 'x-api-key': doomed.token })).status).toBe(201);
    await caller.tokens.revoke({ tokenId: doomed.id });
    const revoked = await expectError(
      await post('/api/public/deletion-requests', body, { 'x-api-key': doomed.token }),
      401,
      'UNAUTHORIZED',
    );
    expect(revoked.message).toMatch(/revoked/);

    const expiring = await caller.tokens.create({ name: 'expiring', expiresInDays: 1 });
    await env.db.prisma.personalAccessToken.update({
      where: { id: expiring.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expectError(
      await post('/api/public/deletion-requests', body, { 'x-api-key': expiring.token }),
      401,
      'UNAUTHORIZED',
    );
    expect(await countRequests()).toBe(before + 1);
  });

  it('404 for an unknown or rotated workspace key', async () => {
    await expectError(
      await post(
        '/api/public/deletion-requests',
        { workspaceApiKey: 'dds_wsk_unknown', identifier: 'a' },
        { 'x-api-key': org.pat },
      ),
      404,
      'NOT_FOUND',
    );
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const ws = await caller.workspaces.create({ name: 'rotating' });
    await caller.workspaces.rotateApiKey({ workspaceId: ws.id });
    await expectError(
      await post(
        '/api/public/deletion-requests',
        { workspaceApiKey: ws.apiKey, identifier: 'a' },
        { 'x-api-key': org.pat },
      ),
      404,
      'NOT_FOUND',
    );
  });

  it('ignores a dashboard session cookie: the public API needs a PAT', async () => {
    const response = await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: org.workspaceApiKey, identifier: 'a' },
      { cookie: 'dds_session=whatever' },
    );
    await expectError(response, 401, 'UNAUTHORIZED');
  });
});

describe('GET list endpoints', () => {
  let listOrg: Awaited<ReturnType<typeof seedOrganization>>;
  const created: string[] = [];

  beforeAll(async () => {
    listOrg = await seedOrganization(env.deps, 'lister');
    for (let i = 0; i < 7; i++) {
      const response = await post(
        '/api/public/deletion-requests',
        { workspaceApiKey: listOrg.workspaceApiKey, identifier: `user${i}@example.com` },
        { 'x-api-key': listOrg.pat },
      );
      created.push((await response.json()).id);
    }
  });

  it("lists the organization's requests newest first with integrationRequests by default", async () => {
    const response = await get('/api/public/deletion-requests/organization', { 'x-api-key': listOrg.pat });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.map((r: { id: string }) => r.id)).toEqual([...created].reverse());
    expect(body[0]).toMatchObject({
      status: 'FAILED',
      statusReason: expect.stringContaining('no enabled integrations'),
      integrationRequests: [],
    });
    expect(response.headers.get('link')).toBeNull();
  });

  it('fetchIntegrationRequests=false leaves integrationRequests out', async () => {
    const body = await (
      await get('/api/public/deletion-requests/organization?fetchIntegrationRequests=false', {
        'x-api-key': listOrg.pat,
      })
    ).json();
    expect(body).toHaveLength(7);
    expect(body.every((r: object) => !('integrationRequests' in r))).toBe(true);
  });

  it.each([
    ['TRUE', true],
    ['False', false],
    ['1', true],
    ['0', false],
  ])('booleans take true/false in any case and 1/0: %j', async (value, fetched) => {
    const body = await (
      await get(`/api/public/deletion-requests/organization?fetchIntegrationRequests=${value}`, {
        'x-api-key': listOrg.pat,
      })
    ).json();
    expect(body.length).toBeGreaterThan(0);
    expect(body.every((r: object) => 'integrationRequests' in r)).toBe(fetched);
  });

  it.each(['yes', 'null', 'on', '2'])('other spellings of a boolean are a 400: %j', async (value) => {
    await expectError(
      await get(`/api/public/deletion-requests/organization?fetchIntegrationRequests=${value}`, {
        'x-api-key': listOrg.pat,
      }),
      400,
      'BAD_REQUEST',
    );
    await expectError(
      await get(`/api/public/deletion-requests/user/${listOrg.user.id}?fetchHashed=${value}`, {
        'x-api-key': listOrg.pat,
      }),
      400,
      'BAD_REQUEST',
    );
  });

  it('paginates with limit and cursor through the Link header, without gaps or repeats', async () => {
    const seen: string[] = [];
    let url: string | null = '/api/public/deletion-requests/organization?limit=3';
    let pages = 0;
    while (url) {
      const response = await get(url.replace(/^https?:\/\/[^/]+/, ''), { 'x-api-key': listOrg.pat });
      expect(response.status).toBe(200);
      const page = await response.json();
      seen.push(...page.map((r: { id: string }) => r.id));
      const link = response.headers.get('link');
      url = link ? /<([^>]+)>; rel="next"/.exec(link)![1]! : null;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('rejects a bad limit or cursor with 400', async () => {
    await expectError(
      await get('/api/public/deletion-requests/organization?limit=0', { 'x-api-key': listOrg.pat }),
      400,
      'BAD_REQUEST',
    );
    await expectError(
      await get('/api/public/deletion-requests/organization?limit=1001', { 'x-api-key': listOrg.pat }),
      400,
      'BAD_REQUEST',
    );
    await expectError(
      await get('/api/public/deletion-requests/organization?cursor=garbage', { 'x-api-key': listOrg.pat }),
      400,
      'BAD_REQUEST',
    );
  });

  it("lists a workspace's requests and a user's requests", async () => {
    const ws = await (
      await get(`/api/public/deletion-requests/workspace/${listOrg.workspace.id}`, { 'x-api-key': listOrg.pat })
    ).json();
    expect(ws).toHaveLength(7);
    const user = await (
      await get(`/api/public/deletion-requests/user/${listOrg.user.id}`, { 'x-api-key': listOrg.pat })
    ).json();
    expect(user).toHaveLength(7);
    expect(user.every((r: { createdByUserId: string }) => r.createdByUserId === listOrg.user.id)).toBe(true);
  });

  it('redacts hashed identifiers unless fetchHashed=false', async () => {
    const target = created[0]!;
    await env.db.prisma.deletionRequest.update({
      where: { id: target },
      data: { identifier: 'hmac:abc123', hashed: true },
    });
    const redacted = await (
      await get(`/api/public/deletion-requests/user/${listOrg.user.id}`, { 'x-api-key': listOrg.pat })
    ).json();
    expect(redacted.find((r: { id: string }) => r.id === target)).toMatchObject({
      identifier: '[redacted]',
      hashed: true,
    });
    const raw = await (
      await get(`/api/public/deletion-requests/user/${listOrg.user.id}?fetchHashed=false`, { 'x-api-key': listOrg.pat })
    ).json();
    expect(raw.find((r: { id: string }) => r.id === target)).toMatchObject({ identifier: 'hmac:abc123', hashed: true });
    expect(raw.find((r: { id: string }) => r.id === created[1])).toMatchObject({ identifier: 'user1@example.com' });
  });

  it('X-Workspace-Api-Key must be valid and narrows the list to its workspace', async () => {
    const { caller } = callerFor(env.deps, { pat: listOrg.pat });
    const other = await caller.workspaces.create({ name: 'second' });
    await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: other.apiKey, identifier: 'second@example.com' },
      { 'x-api-key': listOrg.pat },
    );
    const all = await (await get('/api/public/deletion-requests/organization', { 'x-api-key': listOrg.pat })).json();
    expect(all).toHaveLength(8);
    const narrowed = await (
      await get('/api/public/deletion-requests/organization', {
        'x-api-key': listOrg.pat,
        'x-workspace-api-key': other.apiKey,
      })
    ).json();
    expect(narrowed.map((r: { identifier: string }) => r.identifier)).toEqual(['second@example.com']);
    await expectError(
      await get('/api/public/deletion-requests/organization', {
        'x-api-key': listOrg.pat,
        'x-workspace-api-key': 'dds_wsk_bad',
      }),
      404,
      'NOT_FOUND',
    );
  });

  it("a workspaceApiKey in a list request's body counts as the X-Workspace-Api-Key header", async () => {
    const { caller } = callerFor(env.deps, { pat: listOrg.pat });
    const third = await caller.workspaces.create({ name: 'third' });
    await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: third.apiKey, identifier: 'third@example.com' },
      { 'x-api-key': listOrg.pat },
    );
    const list = (body: string, headers: Record<string, string> = {}) =>
      getWithBody(`/api/public/deletion-requests/organization`, body, { 'x-api-key': listOrg.pat, ...headers });
    // As `curl -X GET -d '{"workspaceApiKey": …}'` sends it (a form content type).
    const narrowed = await list(JSON.stringify({ workspaceApiKey: third.apiKey }));
    expect(narrowed.status).toBe(200);
    expect(JSON.parse(narrowed.body).map((r: { identifier: string }) => r.identifier)).toEqual(['third@example.com']);
    expect(
      (await list(JSON.stringify({ workspaceApiKey: third.apiKey }), { 'x-workspace-api-key': third.apiKey })).status,
    ).toBe(200);
    // Never ignored: a wrong key, another shape, or a disagreeing header is an error, not the whole organization.
    const refused = [
      [JSON.stringify({ workspaceApiKey: 'dds_wsk_bad' }), {}, 404, 'NOT_FOUND'],
      ['{"workspaceApiKey": ', {}, 400, 'BAD_REQUEST'],
      [JSON.stringify({ workspaceApiKey: third.apiKey, identifier: 'x' }), {}, 400, 'BAD_REQUEST'],
      [JSON.stringify({ workspaceApiKey: 42 }), {}, 400, 'BAD_REQUEST'],
      [
        JSON.stringify({ workspaceApiKey: third.apiKey }),
        { 'x-workspace-api-key': 'dds_wsk_other' },
        400,
        'BAD_REQUEST',
      ],
      [JSON.stringify({ workspaceApiKey: 'k'.repeat(5000) }), {}, 413, 'PAYLOAD_TOO_LARGE'],
    ] as const;
    for (const [body, headers, status, code] of refused) {
      const answer = await list(body, headers);
      expect([answer.status, JSON.parse(answer.body).code]).toEqual([status, code]);
    }
    // An empty body is no body.
    expect(JSON.parse((await list('')).body).length).toBeGreaterThan(1);
  });

  it('404 for unknown workspace and user ids; 401 without a PAT', async () => {
    await expectError(
      await get('/api/public/deletion-requests/workspace/ws_nope', { 'x-api-key': listOrg.pat }),
      404,
      'NOT_FOUND',
    );
    await expectError(
      await get('/api/public/deletion-requests/user/usr_nope', { 'x-api-key': listOrg.pat }),
      404,
      'NOT_FOUND',
    );
    await expectError(await get('/api/public/deletion-requests/organization'), 401, 'UNAUTHORIZED');
  });
});

describe('tenant isolation', () => {
  it("organization B's PAT never reaches organization A's workspaces, users or keys", async () => {
    const a = await seedOrganization(env.deps, 'tenant-a');
    const b = await seedOrganization(env.deps, 'tenant-b');
    await post(
      '/api/public/deletion-requests',
      { workspaceApiKey: a.workspaceApiKey, identifier: 'secret-subject@a.com' },
      { 'x-api-key': a.pat },
    );
    const before = await countRequests();
    const attempts = [
      post(
        '/api/public/deletion-requests',
        { workspaceApiKey: a.workspaceApiKey, identifier: 'x@b.com' },
        { 'x-api-key': b.pat },
      ),
      get(`/api/public/deletion-requests/workspace/${a.workspace.id}`, { 'x-api-key': b.pat }),
      get(`/api/public/deletion-requests/user/${a.user.id}`, { 'x-api-key': b.pat }),
      get('/api/public/deletion-requests/organization', {
        'x-api-key': b.pat,
        'x-workspace-api-key': a.workspaceApiKey,
      }),
    ];
    for (const response of await Promise.all(attempts)) {
      const text = await response.clone().text();
      expect(text).not.toContain('secret-subject');
      await expectError(response, 404, 'NOT_FOUND');
    }
    const own = await (await get('/api/public/deletion-requests/organization', { 'x-api-key': b.pat })).json();
    expect(own).toEqual([]);
    expect(await countRequests()).toBe(before);
  });
});

describe('service routes', () => {
  it('/healthz and /readyz answer', async () => {
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok' });
    expect(await (await get('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('unknown API paths are a JSON 404; every response has a request id', async () => {
    const response = await get('/api/public/nothing-here', { 'x-api-key': org.pat });
    await expectError(response, 404, 'NOT_FOUND');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('serves the interactive API reference from local assets', async () => {
    const page = await get('/api/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(?!localhost)/);
    // Read to the end: an unread body keeps the connection busy and the server from closing.
    const bundle = await get('/api/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(1000);
  });
});
