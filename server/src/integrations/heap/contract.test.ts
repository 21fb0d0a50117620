import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { heapConfigSchema } from '@shared/integrations/heap';
import { driverContext } from '../../test/driver-context';
import { jsonOf, type FakeCall } from '../../test/fakes/vendor-server';
import { heapDriver } from './driver';
import { heapUsersProblem, startHeapFake } from './fake';

// Heap publishes no OpenAPI document or SDK for its User Deletion API; these checks are the rules
// of Heap's reference page "User Deletion" as SOURCES.md quotes them, applied to every call our
// driver makes and every answer the fake gives.
const APP_ID = '3170592011';
const KEY = 'heap-contract-key';
let fake: Awaited<ReturnType<typeof startHeapFake>>;
beforeAll(async () => {
  fake = await startHeapFake();
  fake.addApp(APP_ID, KEY);
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.state.completeAfterMs = 0;
  fake.state.rateLimitNext = 0;
});

const ctx = (
  identifier: string,
  options: { trackingId?: string; byUserId?: boolean; appId?: string; key?: string; now?: Date } = {},
) =>
  driverContext(
    'HEAP',
    heapConfigSchema.parse({
      appId: options.appId ?? APP_ID,
      baseUrl: fake.url,
      identifierType: options.byUserId ? 'user_id' : 'user_identity',
    }),
    { apiKey: options.key ?? KEY },
    { identifier, trackingId: options.trackingId ?? null, now: options.now },
  );

/** What Heap's page asks of each call, and what it says Heap answers; empty when the call conforms. */
function heapRules(call: FakeCall): string[] {
  const problems: string[] = [];
  const auth = String(call.headers.authorization ?? '');
  const reply = call.reply!;
  if (call.path === '/api/public/v0/auth_token') {
    if (call.method !== 'POST') problems.push('auth_token is a POST');
    const basic = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
    if (!/^\d+:.+$/.test(basic)) problems.push('auth_token takes HTTP Basic app_id:api_key');
    if (call.body !== '') problems.push('auth_token takes no body');
    if (reply.status === 200 && typeof (reply.body as { access_token?: unknown }).access_token !== 'string')
      problems.push('a 200 token answer carries access_token');
  } else if (call.path === '/api/public/v0/user_deletion') {
    if (call.method !== 'POST') problems.push('user_deletion is a POST');
    if (!/^Bearer .+/.test(auth)) problems.push('user_deletion takes the auth_token as Bearer');
    if (!String(call.headers['content-type']).toLowerCase().startsWith('application/json'))
      problems.push('user_deletion takes JSON');
    const problem = heapUsersProblem(jsonOf(call));
    if (problem) problems.push(`user_deletion body: ${problem}`);
    if (Object.keys((jsonOf(call) as object) ?? {}).join() !== 'users') problems.push('the body has only users');
    if (
      reply.status === 200 &&
      typeof (reply.body as { deletion_request_id?: unknown }).deletion_request_id !== 'string'
    )
      problems.push('a 200 deletion answer carries deletion_request_id');
  } else if (call.path.startsWith('/api/public/v0/deletion_status/')) {
    if (call.method !== 'GET') problems.push('deletion_status is a GET');
    if (!/^Bearer .+/.test(auth)) problems.push('deletion_status takes the auth_token as Bearer');
  } else problems.push(`${call.method} ${call.path} is not an endpoint of the User Deletion API`);
  if (reply.status >= 400 && typeof (reply.body as { err?: unknown } | undefined)?.err !== 'string')
    problems.push('an unsuccessful answer carries err');
  return problems.map((p) => `${call.method} ${call.path}: ${p}`);
}

async function conforming<T>(step: () => Promise<T>): Promise<{ result: T; calls: FakeCall[] }> {
  const before = fake.calls.length;
  const result = await step();
  const calls = fake.calls.slice(before);
  expect(calls.flatMap(heapRules)).toEqual([]);
  return { result, calls };
}

describe("Heap User Deletion API contract (Heap's reference page, SOURCES.md)", () => {
  it('deletes the user identity: token, deletion request, status polled until complete; a look-alike stays', async () => {
    fake.addUser('ada@example.com');
    fake.addUser('ada@example.com.au');
    fake.addUser(null);
    fake.state.completeAfterMs = 60_000;

    const { result: accepted, calls } = await conforming(() => heapDriver.requestDeletion(ctx('ada@example.com')));
    expect(accepted).toMatchObject({ kind: 'accepted', status: 'PENDING' });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/public/v0/auth_token',
      'POST /api/public/v0/user_deletion',
    ]);
    expect(Buffer.from(String(calls[0]!.headers.authorization).slice(6), 'base64').toString()).toBe(`${APP_ID}:${KEY}`);
    expect(jsonOf(calls[1]!)).toEqual({ users: [{ user_identity: 'ada@example.com' }] });
    const trackingId = accepted.kind === 'accepted' ? accepted.trackingId : '';

    const { result: pending } = await conforming(() => heapDriver.checkStatus!(ctx('ada@example.com', { trackingId })));
    expect(pending).toMatchObject({ kind: 'pending', message: expect.stringMatching(/is pending/) });
    expect(fake.state.users.some((u) => u.identity === 'ada@example.com')).toBe(true);

    fake.state.completeAfterMs = 0;
    const { result: done, calls: last } = await conforming(() =>
      heapDriver.checkStatus!(ctx('ada@example.com', { trackingId })),
    );
    expect(done).toEqual({
      kind: 'success',
      message: `Heap deletion request ${trackingId} is complete`,
      evidence: { heapDeletionRequestId: trackingId, heapStatus: 'complete' },
    });
    // Each step asks for its own token (Heap's expire after 5 minutes; a poll may come days later).
    expect(last.map((c) => c.path)).toEqual([
      '/api/public/v0/auth_token',
      `/api/public/v0/deletion_status/${trackingId}`,
    ]);
    expect(fake.state.users.map((u) => u.identity)).toEqual(['ada@example.com.au', null]);
  });

  it("by Heap's user id", async () => {
    const user = fake.addUser(null);
    const { result, calls } = await conforming(() => heapDriver.requestDeletion(ctx(user.userId, { byUserId: true })));
    expect(jsonOf(calls[1]!)).toEqual({ users: [{ user_id: user.userId }] });
    const trackingId = result.kind === 'accepted' ? result.trackingId : '';
    const { result: done } = await conforming(() => heapDriver.checkStatus!(ctx(user.userId, { trackingId })));
    expect(done).toMatchObject({ kind: 'success' });
    expect(fake.state.users.some((u) => u.userId === user.userId)).toBe(false);
  });

  it('a wrong app id or key fails with Heap’s words; a 429 waits without using an attempt', async () => {
    const { result: refused } = await conforming(() =>
      heapDriver.requestDeletion(ctx('x@example.com', { appId: '1234' })),
    );
    expect(refused).toEqual({ kind: 'failed', reason: 'Heap refused the credentials: HTTP 401: Unauthorized' });
    expect(await heapDriver.testConnection(ctx('-', { key: 'wrong' }))).toEqual({
      ok: false,
      message: 'Heap: HTTP 401: Unauthorized',
    });
    expect(await heapDriver.testConnection(ctx('-'))).toMatchObject({ ok: true });

    const now = new Date();
    fake.state.rateLimitNext = 1;
    fake.state.retryAfter = '30';
    const { result: limited } = await conforming(() => heapDriver.requestDeletion(ctx('y@example.com', { now })));
    expect(limited).toMatchObject({ kind: 'deferred', until: new Date(now.getTime() + 30_000) });
    fake.state.rateLimitNext = 1;
    fake.state.retryAfter = undefined;
    const { result: leaky } = await conforming(() => heapDriver.requestDeletion(ctx('y@example.com', { now })));
    expect(leaky).toMatchObject({ kind: 'deferred', until: new Date(now.getTime() + 10_000) });
  });

  it('the rules refuse what Heap does not take, and so does the fake', async () => {
    const token = (
      (await (
        await fetch(`${fake.url}/api/public/v0/auth_token`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${APP_ID}:${KEY}`).toString('base64')}` },
        })
      ).json()) as { access_token: string }
    ).access_token;
    for (const body of [
      { users: [] },
      { users: [{ email: 'a@b.c' }] },
      { users: [{ user_identity: 'a', user_id: 1 }] },
    ]) {
      const before = fake.calls.length;
      const response = await fetch(`${fake.url}/api/public/v0/user_deletion`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(fake.calls.slice(before).flatMap(heapRules)[0]).toMatch(/user_deletion body/);
    }
  });
});
