import { IterableClient, IterableApiError, IterableSuccessResponseSchema } from '@iterable/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterableBaseUrl, iterableConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { iterableDriver } from './driver';
import { startIterableFake } from './fake';

// Iterable's own TypeScript client (@iterable/api, github.com/Iterable/api-client) against the same
// fake: its lookups and updates, and its zod schemas parsing every answer. It has no forget method:
// the forget is sent through the client's own transport (its axios instance and headers).
let fake: Awaited<ReturnType<typeof startIterableFake>>;
let sdk: IterableClient;
const KEY = 'iterable-server-key-0123';
beforeAll(async () => {
  fake = await startIterableFake({ forgetLagMs: 400 });
  fake.state.apiKeys.add(KEY);
  sdk = new IterableClient({ apiKey: KEY, baseUrl: fake.url });
});
afterAll(async () => {
  sdk?.destroy();
  await fake?.close();
});

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: KEY },
) =>
  driverContext('ITERABLE', iterableConfigSchema.parse({ baseUrl: fake.url, ...config }), secrets, {
    identifier,
    trackingId: 'forget',
  });
const sdkForget = (body: { email: string } | { userId: string }) =>
  (sdk as unknown as { client: { post(url: string, body: unknown): Promise<{ data: unknown }> } }).client.post(
    '/api/users/forget',
    body,
  );
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Iterable contract (official @iterable/api)', () => {
  it("looks up, forgets and looks again with the client's requests; the client parses the fake's answers", async () => {
    fake.addUser('reader@example.com', 'u-reader');
    const twin = fake.addUser('reader@example.co', 'u-twin');
    const [sdkGet] = await callsDuring(fake, async () =>
      expect((await sdk.getUserByEmail({ email: 'reader@example.com' })).user).toMatchObject({ userId: 'u-reader' }),
    );
    const ours = await callsDuring(fake, async () => {
      expect(await iterableDriver.requestDeletion(ctx('reader@example.com'))).toMatchObject({
        kind: 'accepted',
        trackingId: 'forget',
        status: 'PROCESSING',
      });
      expect(await iterableDriver.checkStatus!(ctx('reader@example.com'))).toMatchObject({ kind: 'pending' });
      await wait(450);
      expect(await iterableDriver.checkStatus!(ctx('reader@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { forgotten: true, verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/users/reader%40example.com',
      'POST /api/users/forget',
      'GET /api/users/reader%40example.com',
      'GET /api/users/reader%40example.com',
    ]);
    // The look-alike user stays.
    expect(fake.state.users).toContain(twin);
    expect((await sdk.getUserByEmail({ email: 'reader@example.co' })).user).toMatchObject({ userId: 'u-twin' });
    // The client parses "no such user" as Iterable answers it: 200 without a user.
    expect(await sdk.getUserByEmail({ email: 'reader@example.com' })).toEqual({});

    const [sdkPost] = await callsDuring(fake, async () =>
      expect(
        IterableSuccessResponseSchema.parse((await sdkForget({ email: 'reader@example.com' })).data),
      ).toMatchObject({ code: 'Success' }),
    );
    expectSameRequest(ours[0], sdkGet, ['Api-Key']);
    expectSameRequest(ours[1], sdkPost, ['Api-Key']);
  });

  it('forgets by userId; a forgotten user is not added again by email or userId; another user is', async () => {
    fake.addUser('byid@example.com', 'u-byid');
    const ours = await callsDuring(fake, async () => {
      expect(await iterableDriver.requestDeletion(ctx('u-byid', { identifierType: 'userId' }))).toMatchObject({
        kind: 'accepted',
      });
      await wait(450);
      expect(await iterableDriver.checkStatus!(ctx('u-byid', { identifierType: 'userId' }))).toMatchObject({
        kind: 'success',
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path} ${c.body}`)).toEqual([
      'GET /api/users/byUserId/u-byid ',
      'POST /api/users/forget {"userId":"u-byid"}',
      'GET /api/users/byUserId/u-byid ',
    ]);
    const [sdkById] = await callsDuring(fake, () => sdk.getUserByUserId({ userId: 'u-byid' }));
    expectSameRequest(ours[0], sdkById, ['Api-Key']);
    // Iterable refuses data about a forgotten user, by email or by userId.
    await expect(sdk.updateUser({ userId: 'u-byid', dataFields: { plan: 'pro' } })).rejects.toMatchObject({
      statusCode: 400,
      code: 'ForgottenUserError',
    });
    await expect(sdk.updateUser({ email: 'byid@example.com' })).rejects.toBeInstanceOf(IterableApiError);
    expect(await sdk.updateUser({ email: 'someone-else@example.com' })).toMatchObject({ code: 'Success' });
  });

  it('a user not found is forgotten anyway and is at once a success', async () => {
    const ours = await callsDuring(fake, async () =>
      expect(await iterableDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { userFound: false, forgotten: true },
      }),
    );
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/users/nobody%40example.com',
      'POST /api/users/forget',
    ]);
    await expect(sdk.updateUser({ email: 'nobody@example.com' })).rejects.toMatchObject({ code: 'ForgottenUserError' });
  });

  it("a 429 waits without using an attempt; a wrong key fails at once in Iterable's words", async () => {
    fake.addUser('busy@example.com');
    fake.state.throttleNext = 1;
    const now = new Date();
    const outcome = await iterableDriver.requestDeletion({ ...ctx('busy@example.com'), now });
    expect(outcome).toMatchObject({ kind: 'deferred', message: expect.stringContaining('Iterable rate limit') });
    const wrong = await iterableDriver.requestDeletion(ctx('busy@example.com', {}, { apiKey: 'revoked' }));
    expect(wrong).toEqual({
      kind: 'failed',
      reason: 'Iterable refused the credentials: HTTP 401: BadApiKey: Invalid API key',
    });
    // The SDK reads the same refusal.
    const stranger = new IterableClient({ apiKey: 'revoked', baseUrl: fake.url });
    await expect(stranger.getUserByEmail({ email: 'busy@example.com' })).rejects.toMatchObject({
      statusCode: 401,
      code: 'BadApiKey',
    });
    stranger.destroy();
    expect(await iterableDriver.testConnection(ctx('x'))).toEqual({
      ok: true,
      message: 'Iterable accepted the API key',
    });
  });

  it('the data center picks the host; the base URL overrides it', () => {
    expect(iterableConfigSchema.parse({}).region).toBe('US');
    expect(iterableBaseUrl(iterableConfigSchema.parse({}))).toBe('https://api.iterable.com');
    expect(iterableBaseUrl(iterableConfigSchema.parse({ region: 'EU' }))).toBe('https://api.eu.iterable.com');
    expect(iterableBaseUrl(iterableConfigSchema.parse({ region: 'EU', baseUrl: 'http://127.0.0.1:9/' }))).toBe(
      'http://127.0.0.1:9',
    );
  });
});
