import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fullstoryConfigSchema } from '@shared/integrations/fullstory';
import { driverContext } from '../../test/driver-context';
import { swagger2ToOpenApi3 } from '../../test/fakes/swagger2';
import { gitBlobId, VendorOpenApi } from '../../test/fakes/vendor-openapi';
import { fullstoryDriver } from './driver';
import { startFullstoryFake } from './fake';

// Fullstory's own OpenAPI (Swagger 2.0) document of its v2 users API, from which its official
// Node SDK is generated (see SOURCES.md): every request our driver sends to the fake, and every
// answer the fake gives, is validated against it.
const DOCUMENT = new URL('./vendor/users.sdk.swagger.json', import.meta.url);
/** `git hash-object` of specs/users.sdk.swagger.json in github.com/fullstorydev/fullstory-node-sdk (commit f4d7e69c…). */
const DOCUMENT_BLOB = '33747fda5ffbdf9853b6779beb875c8351fba50f';

const KEY = 'fullstory-contract-key';
let fake: Awaited<ReturnType<typeof startFullstoryFake>>;
let contract: VendorOpenApi;

beforeAll(async () => {
  const converted = join(tmpdir(), `fullstory-users-${process.pid}.openapi.json`);
  writeFileSync(converted, JSON.stringify(swagger2ToOpenApi3(JSON.parse(readFileSync(DOCUMENT, 'utf8'))), null, 2));
  contract = await VendorOpenApi.load(converted);
  fake = await startFullstoryFake();
  fake.state.apiKeys.add(KEY);
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.state.deleteAfterMs = 0;
  fake.state.rateLimitNext = 0;
});

const ctx = (identifier: string, options: { trackingId?: string | null; byId?: boolean; key?: string } = {}) =>
  driverContext(
    'FULLSTORY',
    fullstoryConfigSchema.parse({ baseUrl: fake.url, identifierType: options.byId ? 'id' : 'uid' }),
    { apiKey: options.key ?? KEY },
    { identifier, trackingId: options.trackingId ?? null },
  );

/** Runs `step` and returns what it sent, each exchange checked against the document. */
async function conforming<T>(step: () => Promise<T>): Promise<{ result: T; calls: typeof fake.calls }> {
  const before = fake.calls.length;
  const result = await step();
  const calls = fake.calls.slice(before);
  expect(contract.checkCalls(calls)).toEqual([]);
  return { result, calls };
}

describe('Fullstory users API contract (vendor/users.sdk.swagger.json)', () => {
  it("is the vendor's document, unchanged, with the four users operations the connector uses", () => {
    expect(gitBlobId(readFileSync(DOCUMENT))).toBe(DOCUMENT_BLOB);
    expect(contract.operations()).toEqual(
      expect.arrayContaining(['GET /v2/users', 'DELETE /v2/users', 'GET /v2/users/{id}', 'DELETE /v2/users/{id}']),
    );
    expect(contract.document.components.securitySchemes.ApiKeyAuth).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
  });

  it('deletes every user with the uid, follows is_being_deleted to 404, and leaves a look-alike alone', async () => {
    const first = fake.addUser('cust-42', 'ada@example.com');
    const second = fake.addUser('cust-42', 'ada.work@example.com');
    const lookAlike = fake.addUser('cust-420', 'ada@example.org');
    fake.state.deleteAfterMs = 60_000;

    const { result: accepted, calls } = await conforming(() => fullstoryDriver.requestDeletion(ctx('cust-42')));
    expect(accepted).toMatchObject({ kind: 'accepted', trackingId: `${first.id},${second.id}`, status: 'PROCESSING' });
    expect(calls.map((c) => `${c.method} ${c.path}?${c.query}`)).toEqual([
      'GET /v2/users?uid=cust-42',
      'DELETE /v2/users?uid=cust-42',
    ]);
    expect(calls.every((c) => c.headers.authorization === `Basic ${KEY}`)).toBe(true);

    const trackingId = accepted.kind === 'accepted' ? accepted.trackingId : '';
    const { result: pending } = await conforming(() => fullstoryDriver.checkStatus!(ctx('cust-42', { trackingId })));
    expect(pending).toMatchObject({
      kind: 'pending',
      status: 'PROCESSING',
      message: expect.stringMatching(/deleting 2/),
    });

    fake.state.deleteAfterMs = 0;
    const { result: done } = await conforming(() => fullstoryDriver.checkStatus!(ctx('cust-42', { trackingId })));
    expect(done).toMatchObject({
      kind: 'success',
      evidence: { fullstoryUserIds: [first.id, second.id], verifiedGone: true },
    });
    expect(fake.state.users.get(lookAlike.id)?.deletingSince).toBeUndefined();
    expect(fake.state.deleted.map((d) => d.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('by Fullstory id: DeleteUser, then GetUser until 404; an id Fullstory does not have is nothing to delete', async () => {
    const user = fake.addUser('by-id', 'grace@example.com');
    const { result: accepted } = await conforming(() => fullstoryDriver.requestDeletion(ctx(user.id, { byId: true })));
    expect(accepted).toMatchObject({ kind: 'accepted', trackingId: user.id });
    const { result: done } = await conforming(() =>
      fullstoryDriver.checkStatus!(ctx(user.id, { byId: true, trackingId: user.id })),
    );
    expect(done).toMatchObject({ kind: 'success' });
    const { result: none } = await conforming(() => fullstoryDriver.requestDeletion(ctx('404404', { byId: true })));
    expect(none).toMatchObject({ kind: 'success', evidence: { userFound: false } });
    const before = fake.calls.length;
    for (const notAnId of ['..', '1/../2', 'a b'])
      expect(await fullstoryDriver.requestDeletion(ctx(notAnId, { byId: true }))).toEqual({
        kind: 'failed',
        reason: 'The identifier is not a Fullstory user id (letters, digits, - and _)',
      });
    expect(fake.calls.length).toBe(before);
    const { result: noUid } = await conforming(() => fullstoryDriver.requestDeletion(ctx('nobody-has-this')));
    expect(noUid).toMatchObject({ kind: 'success', evidence: { userFound: false } });
  });

  it('asks again for a user Fullstory still lists as not being deleted', async () => {
    const user = fake.addUser('not-taken', 'lin@example.com');
    const { result } = await conforming(() => fullstoryDriver.checkStatus!(ctx('not-taken', { trackingId: user.id })));
    expect(result).toMatchObject({ kind: 'pending', message: expect.stringMatching(/asked again for 1/) });
    expect(fake.state.deleted.at(-1)).toEqual({ id: user.id, uid: 'not-taken', by: 'id' });
  });

  it('a 429 waits as long as Retry-After asks without using an attempt; a refused key fails with Fullstory’s words', async () => {
    fake.addUser('limited', 'kim@example.com');
    fake.state.rateLimitNext = 1;
    fake.state.retryAfter = '7';
    const now = new Date();
    const before = fake.calls.length;
    const limited = await fullstoryDriver.requestDeletion({ ...ctx('limited'), now });
    expect(contract.checkCalls(fake.calls.slice(before))).toEqual([]);
    expect(limited).toMatchObject({ kind: 'deferred', until: new Date(now.getTime() + 7_000) });

    const { result: refused } = await conforming(() =>
      fullstoryDriver.requestDeletion(ctx('limited', { key: 'nope' })),
    );
    expect(refused).toEqual({
      kind: 'failed',
      reason: 'Fullstory refused the credentials: HTTP 401: access is unauthorized (unauthorized)',
    });
    expect(await fullstoryDriver.testConnection(ctx('x'))).toEqual({
      ok: true,
      message: 'Fullstory accepted the API key',
    });
  });

  it('the document refuses what Fullstory does not take, so these checks can fail', () => {
    const call = (method: string, path: string, query: string, authorization?: string) => ({
      method,
      path,
      query: new URLSearchParams(query),
      headers: authorization ? { authorization } : {},
      body: '',
      at: 0,
      reply: { status: 200, body: {} },
    });
    expect(contract.checkRequest(call('DELETE', '/v2/users', 'email=a%40b.c', 'Basic k'))).toEqual([
      'DELETE /v2/users: query parameter "email" is not in the document',
    ]);
    expect(contract.checkRequest(call('DELETE', '/v2/users/1', ''))[0]).toMatch(/no security requirement/);
    expect(contract.checkRequest(call('POST', '/v2/operations/1', '', 'Basic k'))[0]).toMatch(/no such operation/);
    expect(
      contract.checkResponse({
        ...call('GET', '/v2/users/1', '', 'Basic k'),
        reply: { status: 200, body: { id: '1' } },
      }),
    ).toEqual([expect.stringMatching(/is_being_deleted/)]);
  });
});
