import { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth0ConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startAuth0Fake } from './fake';
import { auth0Driver } from './driver';

// Auth0's official Node SDK (auth0, Management API generated from Auth0's OpenAPI document).
let fake: Awaited<ReturnType<typeof startAuth0Fake>>;
const CLIENT_ID = 'm2m-contract-client';
const CLIENT_SECRET = 'm2m-contract-secret-0123456789';
beforeAll(async () => {
  fake = await startAuth0Fake();
  fake.state.clients.set(CLIENT_ID, CLIENT_SECRET);
});
afterAll(() => fake?.close());

/** The SDK always calls https://{domain}: its `fetch` option sends those calls to the fake instead. */
const sdk = () =>
  new ManagementClient({
    domain: fake.state.domain,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    maxRetries: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) =>
      fetch(
        String(input instanceof Request ? input.url : input).replace(`https://${fake.state.domain}`, fake.url),
        init,
      ),
  } as ConstructorParameters<typeof ManagementClient>[0]);
const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: CLIENT_ID, secretKey: CLIENT_SECRET },
) =>
  driverContext(
    'AUTH0',
    auth0ConfigSchema.parse({ domain: fake.state.domain, baseUrl: fake.url, ...config }),
    secrets,
    { identifier },
  );

describe('Auth0 contract (official auth0 SDK)', () => {
  it("gets a token, finds by email, deletes and fetches again with the SDK's requests; the SDK parses the fake's answers", async () => {
    const a = fake.addUser('person@example.com');
    const b = fake.addUser('person@example.com', 'google-oauth2');
    const context = ctx('person@example.com');
    const ours = await callsDuring(fake, async () => {
      expect(await auth0Driver.requestDeletion(context)).toMatchObject({
        kind: 'success',
        evidence: { userIds: [a.user_id, b.user_id], verifiedGone: true },
      });
    });
    // The granted Management API token is recorded nowhere in the trail.
    const granted = ours[1]!.headers.authorization!.slice(7);
    expect(JSON.stringify(context.trail)).not.toContain(granted);
    expect(context.trail[0]).toMatchObject({
      kind: 'http',
      response: { status: 200, body: '[access token withheld]' },
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /oauth/token',
      'GET /api/v2/users-by-email',
      `DELETE /api/v2/users/${encodeURIComponent(a.user_id)}`,
      `DELETE /api/v2/users/${encodeURIComponent(b.user_id)}`,
      `GET /api/v2/users/${encodeURIComponent(a.user_id)}`,
      `GET /api/v2/users/${encodeURIComponent(b.user_id)}`,
    ]);

    const c = fake.addUser('person@example.com');
    const client = sdk();
    const sdkCalls = await callsDuring(fake, async () =>
      expect(await client.users.listUsersByEmail({ email: 'person@example.com' })).toMatchObject([
        { user_id: c.user_id },
      ]),
    );
    const [sdkDelete] = await callsDuring(fake, () => client.users.delete(c.user_id));
    const [sdkGone] = await callsDuring(fake, async () =>
      expect(client.users.get(c.user_id)).rejects.toMatchObject({ statusCode: 404 }),
    );
    const [sdkToken, sdkByEmail] = sdkCalls;
    // The token request: same grant, client, audience and secret, form-encoded.
    expectSameRequest(ours[0], sdkToken);
    const bearerless = (call: (typeof ours)[number], id: string) => ({
      ...call,
      path: call.path.replace(encodeURIComponent(id), '{id}'),
      headers: { ...call.headers, authorization: 'Bearer {token}' },
    });
    expectSameRequest(bearerless(ours[1]!, ''), bearerless(sdkByEmail!, ''));
    expectSameRequest(bearerless(ours[2]!, a.user_id), bearerless(sdkDelete!, c.user_id));
    expectSameRequest(bearerless(ours[4]!, a.user_id), bearerless(sdkGone!, c.user_id));
    expect(ours[1]!.headers.authorization).toMatch(/^Bearer [0-9a-f]{32}$/);
  });

  it('reuses its Management API token; deletes by user id; no such user is nothing to delete', async () => {
    const issued = fake.state.tokensIssued;
    const user = fake.addUser('byid@example.com');
    expect(await auth0Driver.requestDeletion(ctx(user.user_id, { identifierType: 'user_id' }))).toMatchObject({
      kind: 'success',
      evidence: { userIds: [user.user_id] },
    });
    expect(await auth0Driver.requestDeletion(ctx('auth0|missing', { identifierType: 'user_id' }))).toMatchObject({
      kind: 'success',
      evidence: { usersFound: 0 },
    });
    expect(fake.state.tokensIssued).toBe(issued);
  });

  it('finds an email however it was typed: the lookup is case-sensitive and Auth0 stores it in lower case', async () => {
    const user = fake.addUser('jane.doe@example.com');
    const ours = await callsDuring(fake, async () => {
      expect(await auth0Driver.requestDeletion(ctx('Jane.Doe@Example.com'))).toMatchObject({
        kind: 'success',
        evidence: { usersFound: 1, userIds: [user.user_id] },
      });
    });
    expect(ours.filter((c) => c.path === '/api/v2/users-by-email').map((c) => c.query.get('email'))).toEqual([
      'Jane.Doe@Example.com',
      'jane.doe@example.com',
    ]);
  });

  it('fails at once for a wrong client secret, and waits for x-ratelimit-reset on a 429', async () => {
    const refused = await auth0Driver
      .requestDeletion(ctx('x@example.com', {}, { apiKey: CLIENT_ID, secretKey: 'wrong-secret-000' }))
      .catch((e: Error) => e);
    expect(refused).toMatchObject({ message: 'Auth0 refused the client credentials: HTTP 401: Unauthorized' });
    // A custom login domain as the domain: its audience names no API, and the message says what to enter.
    const custom = await auth0Driver
      .requestDeletion({
        ...ctx('x@example.com'),
        config: { ...ctx('x@example.com').config, domain: 'login.example.com' },
      })
      .catch((e: Error) => e);
    expect(custom).toMatchObject({
      message:
        "Auth0 refused the client credentials: HTTP 403: Service not found: https://login.example.com/api/v2/; the domain must be the tenant's own (such as acme.eu.auth0.com), not a custom domain",
    });
    fake.state.throttleNext = 1;
    const outcome = await auth0Driver.requestDeletion(ctx('x@example.com'));
    const waitMs = outcome.kind === 'deferred' ? outcome.until.getTime() - Date.now() : 0;
    expect(waitMs).toBeGreaterThan(2_000);
  });

  it('waits for x-ratelimit-reset, without using an attempt, when the token endpoint answers 429', async () => {
    // A client whose token is not cached yet, so the deletion starts with a token request.
    fake.state.clients.set('m2m-throttled-client', CLIENT_SECRET);
    fake.state.throttleTokenNext = 1;
    const context = ctx('x@example.com', {}, { apiKey: 'm2m-throttled-client', secretKey: CLIENT_SECRET });
    const outcome = await auth0Driver.requestDeletion(context);
    expect(outcome).toMatchObject({
      kind: 'deferred',
      message: expect.stringMatching(/^Auth0 rate limit \(HTTP 429\)/),
    });
    const waitMs = outcome.kind === 'deferred' ? outcome.until.getTime() - context.now.getTime() : 0;
    expect(waitMs).toBeGreaterThan(2_000);
    expect(waitMs).toBeLessThanOrEqual(5_000);
  });
});
