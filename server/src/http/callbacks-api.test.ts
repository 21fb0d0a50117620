import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { expectError, restClient } from '../test/rest';

/**
 * Callback endpoints managed over the public REST API, as a partner's system would: every
 * response is checked against the OpenAPI document (restClient).
 */
let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let rest: ReturnType<typeof restClient>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;

// Nothing listens there: no dispatcher runs in this suite, deliveries stay queued.
const URL_A = 'http://127.0.0.1:9/hooks/a';
const URL_B = 'http://127.0.0.1:9/hooks/b';

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  rest = restClient(server.baseUrl);
  org = await seedOrganization(env.deps, 'callbacks-rest');
  other = await seedOrganization(env.deps, 'callbacks-rest-other');
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const as = (pat: string, extra: Record<string, string> = {}) => ({ 'x-api-key': pat, ...extra });
const call = (method: string, path: string, pat: string, body?: unknown, headers: Record<string, string> = {}) =>
  rest.request(`/api/public${path}`, {
    method,
    headers: { ...as(pat, headers), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('callback endpoints over REST', () => {
  it('registers, lists, changes, tests, reads the log of, resends, rotates and deletes an endpoint', async () => {
    const created = await call('POST', '/callback-endpoints', org.pat, {
      url: URL_A,
      description: 'Partner CRM',
      events: ['deletion_request.completed', 'deletion_request.completed', 'deletion_request.failed'],
    });
    expect(created.status).toBe(201);
    const endpoint = await created.json();
    expect(endpoint).toMatchObject({
      url: URL_A,
      description: 'Partner CRM',
      events: ['deletion_request.completed', 'deletion_request.failed'],
      enabled: true,
      workspaceId: null,
      secret: expect.stringMatching(/^whsec_/),
    });

    const listed = await (await call('GET', '/callback-endpoints', org.pat)).json();
    expect(listed).toEqual([expect.objectContaining({ id: endpoint.id, url: URL_A })]);
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);

    const changed = await call('PATCH', `/callback-endpoints/${endpoint.id}`, org.pat, {
      url: URL_B,
      events: ['deletion_request.created'],
      enabled: false,
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      id: endpoint.id,
      url: URL_B,
      events: ['deletion_request.created'],
      enabled: false,
      description: 'Partner CRM',
    });

    const test = await call('POST', `/callback-endpoints/${endpoint.id}/test`, org.pat, {});
    expect(test.status).toBe(200);
    const { id: deliveryId } = await test.json();
    const log = await (await call('GET', `/callback-endpoints/${endpoint.id}/deliveries`, org.pat)).json();
    expect(log).toMatchObject({
      items: [{ id: deliveryId, eventType: 'callback.test', status: 'PENDING' }],
      nextCursor: null,
    });
    const resent = await call('POST', `/callback-deliveries/${deliveryId}/resend`, org.pat, {});
    expect(await resent.json()).toEqual({ id: deliveryId, status: 'PENDING' });

    const rotated = await call('POST', `/callback-endpoints/${endpoint.id}/rotate-secret`, org.pat, {
      overlapHours: 2,
    });
    expect(rotated.status).toBe(200);
    const withNewSecret = await rotated.json();
    expect(withNewSecret.secret).toMatch(/^whsec_/);
    expect(withNewSecret.secret).not.toBe(endpoint.secret);
    expect(Date.parse(withNewSecret.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(3_600_000);

    const deleted = await call('DELETE', `/callback-endpoints/${endpoint.id}`, org.pat);
    expect(await deleted.json()).toEqual({ id: endpoint.id });
    expect(await (await call('GET', '/callback-endpoints', org.pat)).json()).toEqual([]);
    const audit = await env.db.prisma.auditLog.findMany({
      where: { organizationId: org.organization.id, action: { startsWith: 'callback_' } },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((e) => e.action)).toEqual([
      'callback_endpoint.created',
      'callback_endpoint.updated',
      'callback_delivery.resent',
      'callback_endpoint.secret_rotated',
      'callback_endpoint.deleted',
    ]);
  });

  it('a repeated create with the same Idempotency-Key answers the same endpoint and secret; the stored answer holds no secret in clear', async () => {
    const body = { url: URL_A, events: ['deletion_request.created'] };
    const key = { 'idempotency-key': 'register-crm-1' };
    const first = await call('POST', '/callback-endpoints', org.pat, body, key);
    expect(first.status).toBe(201);
    const again = await call('POST', '/callback-endpoints', org.pat, body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = [await first.json(), await again.json()];
    expect(b).toEqual(a);
    expect(await env.db.prisma.callbackEndpoint.count({ where: { organizationId: org.organization.id } })).toBe(1);
    const stored = await env.db.prisma.idempotencyKey.findFirstOrThrow({ where: { key: 'register-crm-1' } });
    expect(JSON.stringify(stored.response)).not.toContain(a.secret);

    await expectError(
      await call('POST', '/callback-endpoints', org.pat, { ...body, url: URL_B }, key),
      422,
      'UNPROCESSABLE_CONTENT',
    );
    await call('DELETE', `/callback-endpoints/${a.id}`, org.pat);
  });

  it('refuses bad input with 400, no token with 401, a token without callbacks:manage with 403, and others’ endpoints with 404', async () => {
    const invalid = await expectError(
      await call('POST', '/callback-endpoints', org.pat, { url: URL_A, events: [] }),
      400,
      'BAD_REQUEST',
    );
    expect(JSON.stringify(invalid)).toContain('Choose at least one event');
    await expectError(
      await call('POST', '/callback-endpoints', org.pat, {
        url: 'ftp://example.org/x',
        events: ['deletion_request.created'],
      }),
      400,
      'BAD_REQUEST',
    );
    await expectError(
      await call('POST', '/callback-endpoints', org.pat, {
        url: URL_A,
        events: ['deletion_request.created'],
        workspaceId: 'ws_unknown',
      }),
      404,
      'NOT_FOUND',
    );
    await expectError(await rest.request('/api/public/callback-endpoints'), 401, 'UNAUTHORIZED');
    await expectError(await call('DELETE', `/callback-endpoints/${'x'.repeat(65)}`, org.pat), 400, 'BAD_REQUEST');
    await expectError(
      await call('POST', `/callback-deliveries/${'x'.repeat(65)}/resend`, org.pat, {}),
      400,
      'BAD_REQUEST',
    );

    const reader = await callerFor(env.deps, { pat: org.pat }).caller.tokens.create({
      name: 'reader',
      scopes: ['requests:read'],
    });
    const refused = await expectError(await call('GET', '/callback-endpoints', reader.token), 403, 'FORBIDDEN');
    expect(refused.message).toContain('"callbacks:manage"');
    const manager = await callerFor(env.deps, { pat: org.pat }).caller.tokens.create({
      name: 'hooks',
      scopes: ['callbacks:manage'],
    });
    const mine = await (
      await call('POST', '/callback-endpoints', manager.token, { url: URL_A, events: ['deletion_request.failed'] })
    ).json();

    // Another organization's token: the endpoint does not exist for it.
    for (const [method, path, body] of [
      ['PATCH', `/callback-endpoints/${mine.id}`, { enabled: false }],
      ['DELETE', `/callback-endpoints/${mine.id}`, undefined],
      ['POST', `/callback-endpoints/${mine.id}/rotate-secret`, {}],
      ['POST', `/callback-endpoints/${mine.id}/test`, {}],
      ['GET', `/callback-endpoints/${mine.id}/deliveries`, undefined],
    ] as const)
      await expectError(await call(method, path, other.pat, body), 404, 'NOT_FOUND');
    await expectError(await call('POST', '/callback-deliveries/msg_unknown/resend', org.pat, {}), 404, 'NOT_FOUND');
    await expectError(
      await call('GET', `/callback-endpoints/${mine.id}/deliveries?cursor=msg_unknown`, org.pat),
      404,
      'NOT_FOUND',
    );
    expect((await call('GET', '/callback-endpoints', other.pat)).status).toBe(200);
    expect(await (await call('GET', '/callback-endpoints', other.pat)).json()).toEqual([]);
  });
});
