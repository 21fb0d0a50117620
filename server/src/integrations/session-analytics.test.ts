import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';
import { startFullstoryFake } from './fullstory/fake';
import { startHeapFake } from './heap/fake';
import { startHotjarFake } from './hotjar/fake';

// Fullstory, Heap and Hotjar through the engine: accounts and integrations made through tRPC, one
// request with the person's email and user id, each integration fed the identifier type it
// consumes (Fullstory: user_id as its uid; Heap and Hotjar: the email), deletions followed to
// SUCCESS, look-alikes left alone, secrets nowhere in the audit trail.
let env: TestEnv;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let fullstory: Awaited<ReturnType<typeof startFullstoryFake>>;
let heap: Awaited<ReturnType<typeof startHeapFake>>;
let hotjar: Awaited<ReturnType<typeof startHotjarFake>>;

const HEAP_APP_ID = '2084764307';
const SECRETS = {
  FULLSTORY: { apiKey: 'na1.fullstory-engine-key' },
  HEAP: { apiKey: 'heap-engine-api-key' },
  HOTJAR: { apiKey: 'hotjar-engine-client', secretKey: 'hotjar-engine-secret' },
} as const;
type Type = keyof typeof SECRETS;

beforeAll(async () => {
  [fullstory, heap, hotjar] = await Promise.all([startFullstoryFake(), startHeapFake(), startHotjarFake()]);
  fullstory.state.apiKeys.add(SECRETS.FULLSTORY.apiKey);
  heap.addApp(HEAP_APP_ID, SECRETS.HEAP.apiKey);
  hotjar.state.clients.set(SECRETS.HOTJAR.apiKey, SECRETS.HOTJAR.secretKey);
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  worker = await startTestWorker(env, { concurrency: 6 });
});
afterAll(async () => {
  await worker?.stop();
  await env?.close();
  await Promise.all([fullstory, heap, hotjar].map((fake) => fake?.close()));
});

async function connectAll(secrets: Partial<Record<Type, Record<string, string>>> = {}) {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const configs: Record<Type, Record<string, unknown>> = {
    FULLSTORY: { baseUrl: fullstory.url },
    HEAP: { appId: HEAP_APP_ID, baseUrl: heap.url },
    HOTJAR: { organizationId: hotjar.state.organizationId, baseUrl: hotjar.url },
  };
  const ids: Partial<Record<Type, string>> = {};
  for (const type of Object.keys(SECRETS) as Type[]) {
    const account = await caller.accounts.create({
      name: `${type} account`,
      integrationType: type,
      type: 'secretKey' in SECRETS[type] ? 'API_KEY_SECRET' : 'API_KEY',
      secrets: secrets[type] ?? SECRETS[type],
    });
    const integration = await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: type,
      type,
      accountId: account.id,
      config: configs[type],
    });
    ids[type] = integration.id;
  }
  // Fullstory's uid is the product's user id; Heap's identity and Hotjar's lookup take the email.
  await caller.identities.setIntegrationType({ integrationId: ids.FULLSTORY!, consumesType: 'user_id' });
  await caller.identities.setIntegrationType({ integrationId: ids.HEAP!, consumesType: 'email' });
  await caller.identities.setIntegrationType({ integrationId: ids.HOTJAR!, consumesType: 'email' });
  return { org, caller };
}

describe('Fullstory, Heap and Hotjar through the engine', () => {
  it('deletes the person in each, following the asynchronous ones to SUCCESS; look-alikes stay', async () => {
    const { org, caller } = await connectAll();
    const email = 'session-subject@example.com';
    const user = fullstory.addUser('user-7731', email);
    const fullstoryLookAlike = fullstory.addUser('user-77310', 'other@example.com');
    heap.addUser(email);
    const heapLookAlike = heap.addUser(`x${email}`);
    hotjar.addHit({ email });
    const hotjarLookAlike = hotjar.addHit({ email: 'session-subject@example.org' });
    fullstory.state.deleteAfterMs = 150;
    heap.state.completeAfterMs = 150;
    // Fullstory's first answer is a 429: the request waits Retry-After, using no attempt.
    fullstory.state.rateLimitNext = 1;
    fullstory.state.retryAfter = '0.05';

    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: email,
      identifiers: [{ type: 'user_id', value: 'user-7731' }],
    });
    const done = await waitForRequest(env, created.id, undefined, 30_000);
    expect(done.integrationRequests.map((ir) => [ir.integrationType, ir.status, ir.attempts])).toEqual(
      expect.arrayContaining([
        ['FULLSTORY', 'SUCCESS', 1],
        ['HEAP', 'SUCCESS', 1],
        ['HOTJAR', 'SUCCESS', 1],
      ]),
    );
    expect(done.status).toBe('SUCCESS');

    expect(fullstory.calls.filter((c) => c.reply?.status === 429)).toHaveLength(1);
    expect(fullstory.state.deleted).toEqual([{ id: user.id, uid: 'user-7731', by: 'uid' }]);
    expect(fullstory.state.users.get(fullstoryLookAlike.id)?.deletingSince).toBeUndefined();
    expect(heap.state.users).toEqual([heapLookAlike]);
    expect([...heap.state.deletions.values()].map((d) => d.users)).toEqual([[{ user_identity: email }]]);
    expect(hotjar.state.hits).toEqual([hotjarLookAlike]);

    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const evidence = trail.map((e) => (e.details as { evidence?: Record<string, unknown> } | null)?.evidence);
    expect(evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ fullstoryUserIds: [user.id], verifiedGone: true }),
        expect.objectContaining({ heapStatus: 'complete' }),
        expect.objectContaining({ deleteAllHits: true, lookupBy: 'email' }),
      ]),
    );
    const text = JSON.stringify(trail);
    for (const secrets of Object.values(SECRETS))
      for (const value of Object.values(secrets)) expect(text).not.toContain(value);
  });

  it("fails at once, with each vendor's words, when the credentials are wrong", async () => {
    const wrong = Object.fromEntries(
      Object.entries(SECRETS).map(([type, s]) => [
        type,
        Object.fromEntries(Object.keys(s).map((k) => [k, `revoked-${k}-0000`])),
      ]),
    );
    const { org, caller } = await connectAll(wrong);
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'anyone@example.com',
      identifiers: [{ type: 'user_id', value: 'user-1' }],
    });
    const done = await waitForRequest(env, created.id, undefined, 30_000);
    expect(done.status).toBe('FAILED');
    for (const ir of done.integrationRequests) {
      expect([ir.integrationType, ir.status, ir.attempts]).toEqual([ir.integrationType, 'FAILED', 1]);
      expect(ir.lastError).toMatch(/refused the credentials/);
    }
  });
});
