import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hotjarConfigSchema } from '@shared/integrations/hotjar';
import { driverContext } from '../../test/driver-context';
import { jsonOf, type FakeCall } from '../../test/fakes/vendor-server';
import { hotjarDriver } from './driver';
import { hotjarLookupProblem, startHotjarFake } from './fake';

// Hotjar publishes no OpenAPI document or SDK for its API; these checks are the rules of Hotjar's
// API Reference as SOURCES.md quotes them, applied to every call our driver makes.
const CLIENT_ID = 'hotjar-client-id';
const SECRET = 'hotjar-client-secret';
let fake: Awaited<ReturnType<typeof startHotjarFake>>;
beforeAll(async () => {
  fake = await startHotjarFake();
  fake.state.clients.set(CLIENT_ID, SECRET);
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.state.rateLimitNext = 0;
});

const ctx = (
  identifier: string,
  options: { byUserId?: boolean; secret?: string; organizationId?: string; now?: Date } = {},
) =>
  driverContext(
    'HOTJAR',
    hotjarConfigSchema.parse({
      organizationId: options.organizationId ?? fake.state.organizationId,
      baseUrl: fake.url,
      ...(options.byUserId ? { identifierType: 'user_id', siteIds: fake.state.siteIds } : {}),
    }),
    { apiKey: CLIENT_ID, secretKey: options.secret ?? SECRET },
    { identifier, now: options.now },
  );

/** What Hotjar's API Reference asks of each call; empty when the call conforms. */
function hotjarRules(call: FakeCall): string[] {
  const problems: string[] = [];
  if (call.path === '/v1/oauth/token') {
    if (call.method !== 'POST') problems.push('the token endpoint takes a POST');
    if (call.headers['content-type'] !== 'application/x-www-form-urlencoded')
      problems.push('"The request must be encoded as application/x-www-form-urlencoded"');
    const form = new URLSearchParams(call.body);
    if ([...form.keys()].sort().join() !== 'client_id,client_secret,grant_type')
      problems.push('the token request has exactly grant_type, client_id and client_secret');
    if (form.get('grant_type') !== 'client_credentials')
      problems.push('"grant_type must be set to client_credentials"');
    if (call.headers.authorization !== undefined) problems.push('the credentials go in the form, not a header');
  } else if (/^\/v1\/organizations\/\d+\/user-lookup$/.test(call.path)) {
    if (call.method !== 'POST') problems.push('the user lookup is a POST');
    if (!/^Bearer .+/.test(String(call.headers.authorization ?? '')))
      problems.push('"Send the bearer token with all other API calls via the Authorization HTTP Header"');
    if (call.headers['content-type'] !== 'application/json') problems.push('"It accepts JSON request bodies"');
    const problem = hotjarLookupProblem(jsonOf(call));
    if (problem) problems.push(problem);
  } else problems.push('not an endpoint of the Hotjar API this connector uses');
  return problems.map((p) => `${call.method} ${call.path}: ${p}`);
}

async function conforming<T>(step: () => Promise<T>): Promise<{ result: T; calls: FakeCall[] }> {
  const before = fake.calls.length;
  const result = await step();
  const calls = fake.calls.slice(before);
  expect(calls.flatMap(hotjarRules)).toEqual([]);
  return { result, calls };
}

describe("Hotjar API contract (Hotjar's API Reference, SOURCES.md)", () => {
  it('deletes every hit of the email across the organization; a look-alike stays', async () => {
    fake.addHit({ email: 'ada@example.com' });
    fake.addHit({ email: 'ADA@example.com', siteId: fake.state.siteIds[1] });
    const lookAlike = fake.addHit({ email: 'ada@example.co' });
    const { result, calls } = await conforming(() => hotjarDriver.requestDeletion(ctx('ada@example.com')));
    expect(result).toMatchObject({
      kind: 'success',
      evidence: { hotjarOrganizationId: fake.state.organizationId, lookupBy: 'email', deleteAllHits: true },
    });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /v1/oauth/token',
      `POST /v1/organizations/${fake.state.organizationId}/user-lookup`,
    ]);
    expect(jsonOf(calls[1]!)).toEqual({ data_subject_email: 'ada@example.com', delete_all_hits: true });
    expect(fake.state.hits).toEqual([lookAlike]);
  });

  it('by User ID: the same id on every configured site', async () => {
    fake.addHit({ userId: 'u-42', siteId: fake.state.siteIds[1] });
    const lookAlike = fake.addHit({ userId: 'u-420' });
    const { calls } = await conforming(() => hotjarDriver.requestDeletion(ctx('u-42', { byUserId: true })));
    expect(jsonOf(calls[1]!)).toEqual({
      data_subject_site_id_to_user_id_map: Object.fromEntries(fake.state.siteIds.map((s) => [s, 'u-42'])),
      delete_all_hits: true,
    });
    expect(fake.state.hits).toContain(lookAlike);
    expect(fake.state.hits.some((h) => h.userId === 'u-42')).toBe(false);
    expect(() => hotjarConfigSchema.parse({ organizationId: '1', identifierType: 'user_id' })).toThrow(
      /at least one site/,
    );
  });

  it('a refused secret or another organization fails with Hotjar’s words; a 429 waits without using an attempt', async () => {
    const { result: refused } = await conforming(() =>
      hotjarDriver.requestDeletion(ctx('a@example.com', { secret: 'x' })),
    );
    expect(refused).toEqual({
      kind: 'failed',
      reason: 'Hotjar refused the credentials: HTTP 401: Client authentication failed',
    });
    const { result: elsewhere } = await conforming(() =>
      hotjarDriver.requestDeletion(ctx('a@example.com', { organizationId: '999' })),
    );
    expect(elsewhere).toEqual({ kind: 'failed', reason: 'HTTP 404: Not Found' });
    expect(await hotjarDriver.testConnection(ctx('-'))).toEqual({
      ok: true,
      message: 'Hotjar issued a token for this API key',
    });

    const now = new Date();
    fake.state.rateLimitNext = 1;
    fake.state.retryAfter = undefined;
    const { result: limited } = await conforming(() => hotjarDriver.requestDeletion(ctx('a@example.com', { now })));
    expect(limited).toMatchObject({ kind: 'deferred', until: new Date(now.getTime() + 20_000) });
  });

  it('a client secret with characters forms encode keeps out of the recorded exchanges', async () => {
    const secret = "s3cr3t ~!'()+/=& x";
    fake.state.clients.set('odd-client', secret);
    fake.addHit({ email: 'odd@example.com' });
    const context = driverContext(
      'HOTJAR',
      hotjarConfigSchema.parse({ organizationId: fake.state.organizationId, baseUrl: fake.url }),
      { apiKey: 'odd-client', secretKey: secret },
      { identifier: 'odd@example.com' },
    );
    const { result } = await conforming(() => hotjarDriver.requestDeletion(context));
    expect(result).toMatchObject({ kind: 'success' });
    const recorded = JSON.stringify(context.trail);
    expect(recorded).toContain('client_secret=[redacted]');
    for (const form of [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)])
      expect(recorded).not.toContain(form);
  });

  it('the rules refuse what Hotjar does not take', () => {
    expect(hotjarLookupProblem({ delete_all_hits: true })).toMatch(/one of data_subject_email/);
    expect(hotjarLookupProblem({ data_subject_email: 'not-an-email' })).toMatch(/email address/);
    expect(hotjarLookupProblem({ data_subject_site_id_to_user_id_map: { site: 'u' } })).toMatch(/maps site ids/);
    expect(hotjarLookupProblem({ data_subject_email: 'a@b.co', delete_all_hits: 'yes' })).toMatch(/boolean/);
    const token: FakeCall = {
      method: 'POST',
      path: '/v1/oauth/token',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"client_credentials"}',
      at: 0,
    };
    expect(hotjarRules(token)).toHaveLength(3);
  });
});
