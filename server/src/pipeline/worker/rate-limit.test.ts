import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorker, workspaceWithWebhooks, type WebhookDestination } from '../../test/engine';
import { createTestEnv, type TestEnv } from '../../test/harness';

type Answer = { status: number; headers?: Record<string, string> } | null;

/**
 * A destination on loopback that records when each call arrives and answers what `answer`
 * says for the nth call (null: never), after `delayMs`.
 */
async function startDestination(answer: (nth: number) => Answer = () => ({ status: 200 }), delayMs = 0) {
  const arrivals: number[] = [];
  /** Each call's arrival by the email its body names (bodies that name one). */
  const byEmail = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const at = Date.now();
    arrivals.push(at);
    const reply = answer(arrivals.length);
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const email = /"email":"([^"]+)"/.exec(body)?.[1];
      if (email) byEmail.set(email, at);
    });
    if (reply === null) return;
    req.on('end', () =>
      setTimeout(() => {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end('{}');
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    byEmail,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The most calls that arrived within any `windowMs` (a sliding window, as a vendor counting by the second would see them). */
function mostInWindow(arrivals: number[], windowMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(done: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(25);
}

const workspaceWith = (destinations: WebhookDestination[]) => workspaceWithWebhooks(env, destinations);

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv({ WORKER_POLL_MS: '50' });
});
afterAll(async () => {
  await env?.close();
});

describe('maxRequestsPerSecond', () => {
  it('holds a destination to its rate across two worker processes, without counting waits as attempts', async () => {
    const destination = await startDestination();
    const workspace = await workspaceWith([{ name: 'Rated CRM', url: destination.url, maxRequestsPerSecond: 10 }]);
    expect(workspace.integrations[0]!.maxRequestsPerSecond).toBe(10);
    const count = 35;
    await workspace.importSubjects(count);

    // Two workers on pools of their own, as two processes would be, each with room for every call at once.
    const workers = [await startTestWorker(env, { concurrency: 64 }), await startTestWorker(env, { concurrency: 64 })];
    try {
      await until(() => destination.arrivals.length >= count, 20_000);
      await sleep(300);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await destination.close();
    }
    expect(destination.arrivals).toHaveLength(count);
    // 10 a second: one slot every 100 ms, whichever process sends it. A call leaves some
    // milliseconds after its slot (the step loads its destination first; the first steps of a
    // worker take longest), so a second may see a call or three more; over longer spans the
    // rate holds.
    expect(mostInWindow(destination.arrivals, 1_000)).toBeLessThanOrEqual(13);
    expect(mostInWindow(destination.arrivals, 2_000)).toBeLessThanOrEqual(23);
    expect(mostInWindow(destination.arrivals, 3_000)).toBeLessThanOrEqual(33);
    const spanMs = Math.max(...destination.arrivals) - Math.min(...destination.arrivals);
    expect(spanMs).toBeGreaterThanOrEqual((count - 1) * 100 - 150);
    // ...and not much slower than the rate allows.
    expect(spanMs).toBeLessThan((count - 1) * 100 + 2_500);
    // Each request was called once, on its first attempt: waiting for a slot is no attempt.
    const attempts = await env.db.pool.query<{ attempts: number }>(
      `SELECT attempts FROM "IntegrationRequest" WHERE "integrationId" = $1`,
      [workspace.integrations[0]!.id],
    );
    expect(attempts.rows.map((r) => r.attempts)).toEqual(Array(count).fill(1));
  });

  it('counts every call a step makes against the rate, and learns how many a step makes', async () => {
    const destination = await startDestination();
    const workspace = await workspaceWith([
      { name: 'Rated CRM', url: destination.url, maxRequestsPerSecond: 10, body: '{"email":"{{identifier}}"}' },
    ]);
    const integrationId = workspace.integrations[0]!.id;
    // Each request names two emails, and the integration takes emails: two calls in each step.
    await workspace.caller.identities.setIntegrationType({ integrationId, consumesType: 'email' });
    const count = 30;
    const createBatch = async (batch: string) => {
      for (let i = 0; i < count; i++)
        await workspace.caller.deletionRequests.createInWorkspace({
          workspaceId: workspace.org.workspace.id,
          identifier: `first-${batch}-${i}@example.com`,
          identifiers: [{ type: 'email', value: `second-${batch}-${i}@example.com` }],
        });
    };
    await createBatch('a');
    const workers = [await startTestWorker(env, { concurrency: 64 }), await startTestWorker(env, { concurrency: 64 })];
    let secondBatch: number[] = [];
    try {
      await until(() => destination.arrivals.length >= count * 2, 20_000);
      await sleep(300);
      expect(destination.arrivals).toHaveLength(count * 2);
      // The first batch: the slots a claim hands out for the next second go to steps before any
      // has ended, so the first second may see its steps' calls twice over; then the extra slots
      // the ended steps take hold the calls to ten a second (counting steps alone, all 60 calls
      // would go within about 3 s, 20 a second).
      const spanMs = Math.max(...destination.arrivals) - Math.min(...destination.arrivals);
      expect(spanMs).toBeGreaterThanOrEqual(4_500);
      expect(mostInWindow(destination.arrivals, 3_000)).toBeLessThanOrEqual(43);
      // The integration has learned that a step makes two calls...
      const learned = await env.db.pool.query<{ callsPerStep: number }>(
        `SELECT "callsPerStep" FROM "Integration" WHERE id = $1`,
        [integrationId],
      );
      expect(learned.rows[0]!.callsPerStep).toBeGreaterThan(1.9);
      expect(learned.rows[0]!.callsPerStep).toBeLessThanOrEqual(2);
      // ...so the next backlog's slots stand for two calls each from its first second on.
      const before = destination.arrivals.length;
      await createBatch('b');
      await until(() => destination.arrivals.length >= before + count * 2, 20_000);
      await sleep(300);
      secondBatch = destination.arrivals.slice(before);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await destination.close();
    }
    expect(secondBatch).toHaveLength(count * 2);
    // A step's two calls leave a tenth of a second apart (one call's share of 10 a second), not
    // back to back at its slot's start (a few milliseconds apart before they were spaced).
    for (let i = 0; i < count; i++) {
      const first = destination.byEmail.get(`first-b-${i}@example.com`)!;
      const second = destination.byEmail.get(`second-b-${i}@example.com`)!;
      expect(Math.abs(second - first)).toBeGreaterThanOrEqual(80);
    }
    expect(mostInWindow(secondBatch, 1_000)).toBeLessThanOrEqual(13);
    expect(mostInWindow(secondBatch, 3_000)).toBeLessThanOrEqual(33);
    expect(Math.max(...secondBatch) - Math.min(...secondBatch)).toBeGreaterThanOrEqual((count * 2 - 1) * 100 - 250);
  });

  it("pushes the destination's next slot to a 429's Retry-After, for every worker", async () => {
    // The first call is refused for 2 s; the others are answered.
    const destination = await startDestination((nth) =>
      nth === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 },
    );
    const workspace = await workspaceWith([{ name: 'Busy CRM', url: destination.url }]);
    expect(workspace.integrations[0]!.maxRequestsPerSecond).toBeNull();
    const count = 6;
    await workspace.importSubjects(count);
    const workers = [await startTestWorker(env, { concurrency: 1 }), await startTestWorker(env, { concurrency: 1 })];
    try {
      await until(() => destination.arrivals.length >= count + 1, 15_000);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await destination.close();
    }
    const [refused, ...after] = destination.arrivals;
    expect(after.length).toBeGreaterThanOrEqual(count - 1);
    // The call the other worker had already sent may arrive at once; none is sent after the 429 until its wait is over.
    const sentAfter = after.filter((at) => at > refused! + 150);
    expect(sentAfter.length).toBeGreaterThanOrEqual(count - 2);
    for (const at of sentAfter) expect(at - refused!).toBeGreaterThanOrEqual(1_900);
  });

  it('lets a hanging rate-limited destination hold only its own slots while the others go on', async () => {
    const hanging = await startDestination(() => null);
    const fast = await startDestination();
    const workspace = await workspaceWith([
      { name: 'Hanging CRM', url: hanging.url, maxConcurrency: 2, maxRequestsPerSecond: 50 },
      { name: 'Fast CRM', url: fast.url, maxRequestsPerSecond: null },
    ]);
    const count = 40;
    await workspace.importSubjects(count);
    const workers = [await startTestWorker(env, { concurrency: 8 }), await startTestWorker(env, { concurrency: 8 })];
    const started = Date.now();
    try {
      await until(() => fast.arrivals.length >= count, 15_000);
      await sleep(300);
    } finally {
      await hanging.close();
      await fast.close();
      await Promise.all(workers.map((w) => w.stop()));
    }
    expect(fast.arrivals).toHaveLength(count);
    expect(Math.max(...fast.arrivals) - started).toBeLessThan(10_000);
    expect(hanging.arrivals).toHaveLength(2);
  });

  it("applies the vendor's documented rate at creation, and takes another or none", async () => {
    const workspace = await workspaceWith([]);
    const account = await workspace.caller.accounts.create({
      name: 'stripe',
      integrationType: 'STRIPE',
      type: 'API_KEY',
      secrets: { apiKey: 'sk_test_rate' },
    });
    const create = (maxRequestsPerSecond?: number | null) =>
      workspace.caller.integrations.create({
        workspaceId: workspace.org.workspace.id,
        name: 'Stripe',
        type: 'STRIPE',
        accountId: account.id,
        config: {},
        maxRequestsPerSecond,
      });
    // https://docs.stripe.com/rate-limits: 25 requests per second per endpoint.
    expect((await create()).maxRequestsPerSecond).toBe(25);
    expect((await create(null)).maxRequestsPerSecond).toBeNull();
    const integration = await create(2.5);
    expect(integration.maxRequestsPerSecond).toBe(2.5);
    const update = (maxRequestsPerSecond: number | null) =>
      workspace.caller.integrations.update({ integrationId: integration.id, maxRequestsPerSecond });
    await expect(update(0)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(update(10_001)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await update(0.5)).maxRequestsPerSecond).toBe(0.5);
    expect(
      (await workspace.caller.integrations.update({ integrationId: integration.id, name: 'Stripe 2' }))
        .maxRequestsPerSecond,
    ).toBe(0.5);
    expect((await update(null)).maxRequestsPerSecond).toBeNull();
  });
});
