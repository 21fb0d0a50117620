import { createClient } from 'node-zendesk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zendeskConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startZendeskFake } from './fake';
import { zendeskDriver } from './driver';

// node-zendesk (the maintained Node client Zendesk's docs point to) against the same fake.
let fake: Awaited<ReturnType<typeof startZendeskFake>>;
const ADMIN = 'admin@acme.example';
const TOKEN = 'zd-api-token-0123456789';
beforeAll(async () => {
  fake = await startZendeskFake();
  fake.state.credentials.add(`${ADMIN}/token:${TOKEN}`);
});
afterAll(() => fake?.close());

const sdk = (token = TOKEN) =>
  createClient({ username: ADMIN, token, endpointUri: `${fake.url}/api/v2` } as Parameters<typeof createClient>[0]);
const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: TOKEN },
) =>
  driverContext(
    'ZENDESK',
    zendeskConfigSchema.parse({ subdomain: 'acme', agentEmail: ADMIN, baseUrl: fake.url, ...config }),
    secrets,
    { identifier },
  );

describe('Zendesk contract (node-zendesk)', () => {
  it("searches, deletes, permanently deletes and looks again with the SDK's requests; the SDK parses the fake's answers", async () => {
    const user = fake.addUser('customer@example.com');
    const ours = await callsDuring(fake, async () => {
      expect(await zendeskDriver.requestDeletion(ctx('customer@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { userIds: [String(user.id)], verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v2/users/search.json',
      'GET /api/v2/deleted_users.json',
      `DELETE /api/v2/users/${user.id}.json`,
      `DELETE /api/v2/deleted_users/${user.id}.json`,
      `GET /api/v2/deleted_users/${user.id}.json`,
    ]);
    expect(fake.state.erased).toContain(user.id);

    const other = fake.addUser('customer@example.com');
    const client = sdk();
    const [sdkSearch] = await callsDuring(fake, async () =>
      expect(await client.users.search({ query: 'email:customer@example.com' })).toMatchObject([
        { id: other.id, email: 'customer@example.com' },
      ]),
    );
    const [sdkDelete] = await callsDuring(fake, async () =>
      expect(((await client.users.delete(other.id)) as unknown as { result: unknown }).result).toMatchObject({
        id: other.id,
        active: false,
      }),
    );
    // node-zendesk has no method for deleted users: its generic request builds the same URL, auth and parsing.
    const [sdkPermanent] = await callsDuring(fake, async () =>
      expect(
        (
          await (client.users.request as unknown as (method: string, uri: unknown[]) => Promise<{ result: unknown }>)(
            'DELETE',
            ['deleted_users', other.id],
          )
        ).result,
      ).toMatchObject({ deleted_user: { id: other.id } }),
    );
    const id = (call: (typeof ours)[number], n: number) => ({ ...call, path: call.path.replace(String(n), '{id}') });
    expectSameRequest(ours[0], sdkSearch);
    expectSameRequest(id(ours[2]!, user.id), id(sdkDelete!, other.id));
    expectSameRequest(id(ours[3]!, user.id), id(sdkPermanent!, other.id));
  });

  it('permanently deletes a user soft-deleted earlier, whom the search no longer finds, on every page of deleted users', async () => {
    const softDeletedEarlier = fake.addUser('left-earlier@example.com');
    const others = Array.from({ length: 105 }, (_, i) => fake.addUser(`someone-${i}@example.com`));
    for (const u of [softDeletedEarlier, ...others]) {
      fake.state.users.delete(u.id);
      fake.state.deletedUsers.set(u.id, { ...u, active: false });
    }
    const calls = await callsDuring(fake, async () => {
      expect(await zendeskDriver.requestDeletion(ctx('Left-Earlier@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { userIds: [String(softDeletedEarlier.id)], verifiedGone: true },
      });
    });
    expect(calls.filter((c) => c.path === '/api/v2/deleted_users.json').map((c) => c.query.get('page[after]'))).toEqual(
      [null, expect.any(String)],
    );
    expect(fake.state.erased).toContain(softDeletedEarlier.id);
    expect(others.every((u) => fake.state.deletedUsers.has(u.id))).toBe(true);
  });

  it('deletes by user id; no such user is nothing to delete', async () => {
    const user = fake.addUser('byid@example.com');
    expect(await zendeskDriver.requestDeletion(ctx(String(user.id), { identifierType: 'user_id' }))).toMatchObject({
      kind: 'success',
      evidence: { usersFound: 1 },
    });
    expect(await zendeskDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { usersFound: 0 },
    });
  });

  it('deletes only the users whose email is the identifier, on every page of the search', async () => {
    // The search finds jo@acme.com for `email:jo@acme.co` (a prefix), and Jo@Acme.co whatever its case.
    const longer = fake.addUser('jo@acme.com');
    const exact = [fake.addUser('jo@acme.co'), fake.addUser('Jo@Acme.co'), fake.addUser('jo@acme.co')];
    fake.state.perPage = 2;
    try {
      const ours = await callsDuring(fake, async () => {
        expect(await zendeskDriver.requestDeletion(ctx('jo@acme.co'))).toMatchObject({
          kind: 'success',
          evidence: { usersFound: 3, userIds: exact.map((u) => String(u.id)) },
        });
      });
      expect(ours.filter((c) => c.path === '/api/v2/users/search.json').map((c) => c.query.get('page'))).toEqual([
        null,
        '2',
      ]);
    } finally {
      fake.state.perPage = 100;
    }
    expect(fake.state.users.has(longer.id)).toBe(true);
    for (const user of exact) expect(fake.state.erased).toContain(user.id);
  });

  it("fails at once with Zendesk's words for a bad token, and waits Retry-After on a 429", async () => {
    expect(await zendeskDriver.requestDeletion(ctx('x@example.com', {}, { apiKey: 'revoked' }))).toEqual({
      kind: 'failed',
      reason: "Zendesk refused the credentials: HTTP 401: Couldn't authenticate you",
    });
    await expect(sdk('revoked').users.me()).rejects.toThrow(/Zendesk Error \(401\)/);
    fake.state.throttleNext = 1;
    const now = new Date();
    expect(await zendeskDriver.requestDeletion({ ...ctx('x@example.com'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 7_000),
    });
  });
});
