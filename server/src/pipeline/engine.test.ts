import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordedDetails } from '../services/audit/recorded-exchanges';
import { connectCustomerDatabase, createCustomerDatabase, type CustomerDatabase } from '../test/customer-db';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForIntegrationRequest, waitForRequest } from '../test/engine';
import { startWebhookServer, type WebhookServer } from '../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';

let env: TestEnv;
let hooks: WebhookServer;
let customer: CustomerDatabase;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  hooks = await startWebhookServer();
  customer = await createCustomerDatabase();
  worker = await startTestWorker(env);
});
afterAll(async () => {
  await worker?.stop();
  await hooks?.close();
  await customer?.close();
  await env?.close();
});

/** A fresh organization and workspace per test, driven through tRPC as its owner. */
async function setup() {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  return { org, caller };
}

type Caller = Awaited<ReturnType<typeof setup>>['caller'];

async function webhook(
  caller: Caller,
  workspaceId: string,
  config: Record<string, unknown>,
  secrets?: Record<string, string>,
) {
  const account = secrets
    ? await caller.accounts.create({ name: 'hook secrets', integrationType: 'WEBHOOK', type: 'KEY_VALUE', secrets })
    : null;
  return caller.integrations.create({
    workspaceId,
    name: 'Internal CRM',
    type: 'WEBHOOK',
    accountId: account?.id ?? null,
    config,
  });
}

/** Cancels a request whose async job is being polled: a cancel that meets a poll holding the lease is tried again. */
async function cancelBetweenPolls(caller: Caller, deletionRequestId: string) {
  let result: Awaited<ReturnType<Caller['deletionRequests']['cancel']>> | undefined;
  for (let i = 0; i < 40 && !result; i++) {
    try {
      result = await caller.deletionRequests.cancel({ deletionRequestId });
      if (result.refused.length) result = undefined;
    } catch {
      // being polled right now: try again
    }
    if (!result) await new Promise((r) => setTimeout(r, 20));
  }
  return result;
}

const postgres = (caller: Caller, workspaceId: string, rules: unknown[], extra: Record<string, unknown> = {}) =>
  connectCustomerDatabase(caller, workspaceId, customer, rules, extra);

const USER_RULES = [
  { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
  { table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
  { table: 'users', identifierColumns: ['email', 'alt_email'], match: 'any', action: 'delete' },
];

beforeEach(() => {
  hooks.calls.length = 0;
});

describe('deletion engine, end to end', () => {
  it('drives a webhook and a PostgreSQL integration to SUCCESS with a verified, redacted audit trail', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /erase', () => ({ status: 200, body: { ok: true } }));
    await webhook(
      caller,
      org.workspace.id,
      {
        mode: 'sync',
        initiate: {
          method: 'POST',
          url: `${hooks.url}/erase?user={{identifier}}`,
          headers: { Authorization: 'Bearer {{token}}' },
          body: '{"email":"{{identifier}}"}',
        },
      },
      { token: 'super-secret-webhook-token' },
    );
    await postgres(caller, org.workspace.id, USER_RULES);
    await customer.seedUser('jane@example.com');
    await customer.seedUser('keep@example.com');

    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'jane@example.com',
    });
    expect(created.integrationRequests).toHaveLength(2);
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    expect(done.completedAt).not.toBeNull();
    expect(done.integrationRequests.map((i) => [i.integrationType, i.status, i.attempts])).toEqual([
      ['WEBHOOK', 'SUCCESS', 1],
      ['POSTGRES', 'SUCCESS', 1],
    ]);

    const call = hooks.callsTo('POST /erase')[0]!;
    expect(call.path).toBe('/erase?user=jane%40example.com');
    expect(JSON.parse(call.body)).toEqual({ email: 'jane@example.com' });
    expect(call.headers.authorization).toBe('Bearer super-secret-webhook-token');
    expect(call.headers['idempotency-key']).toBe(done.integrationRequests[0]!.id);

    expect(await customer.count(`SELECT count(*) FROM users WHERE email = 'jane@example.com'`)).toBe(0);
    expect(await customer.count(`SELECT count(*) FROM orders WHERE customer_email = 'jane@example.com'`)).toBe(0);
    expect(await customer.count(`SELECT count(*) FROM users WHERE email = 'keep@example.com'`)).toBe(1);
    expect(await customer.count(`SELECT count(*) FROM orders WHERE customer_email = 'keep@example.com'`)).toBe(2);

    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const text = JSON.stringify(trail);
    expect(text).not.toContain('super-secret-webhook-token');
    expect(text).not.toContain(customer.credentials.password);
    const dbStep = trail.find(
      (e) => e.action === 'deletion.requested' && e.integrationRequestId === done.integrationRequests[1]!.id,
    )!;
    const details = dbStep.details as {
      exchanges: { kind: string; statement: string; rowCount: number }[];
      evidence: { changed: Record<string, number>; remaining: Record<string, number> };
    };
    // The three rules (on three tables) ran as one statement, then the verification.
    const statements = details.exchanges.filter((x) => x.kind === 'sql');
    expect(statements).toHaveLength(2);
    expect(statements[0]!.statement).toContain('DELETE FROM "public"."orders"');
    expect(statements[0]!.rowCount).toBe(6);
    expect(details.evidence.changed).toEqual({
      'delete on public.orders': 2,
      'delete on public.events': 3,
      'delete on public.users': 1,
    });
    expect(Object.values(details.evidence.remaining)).toEqual([0, 0, 0]);
    const hookStep = trail.find(
      (e) => e.action === 'deletion.requested' && e.integrationRequestId === done.integrationRequests[0]!.id,
    )!;
    expect(
      (
        hookStep.details as {
          exchanges: { request: { headers: Record<string, string> }; response: { status: number } }[];
        }
      ).exchanges[0],
    ).toMatchObject({
      request: { headers: { Authorization: '[redacted]' } },
      response: { status: 200 },
    });
    expect(trail.map((e) => e.action)).toEqual(
      expect.arrayContaining(['request.created', 'deletion.requested', 'request.completed']),
    );
    // One entry per step outcome: the step that succeeded is the integration request's last entry.
    for (const ir of done.integrationRequests)
      expect(trail.filter((e) => e.integrationRequestId === ir.id)).toEqual([
        expect.objectContaining({ action: 'deletion.requested', outcome: 'SUCCESS' }),
      ]);
  });

  it('retries a 5xx, waits out a 429 without using an attempt, and then succeeds', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /flaky', (_c, nth) =>
      nth === 1
        ? { status: 503, body: { message: 'down' } }
        : nth === 2
          ? { status: 429, headers: { 'retry-after': '0' } }
          : { status: 204 },
    );
    await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/flaky` } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'flaky@example.com',
    });
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    // The 503 used an attempt; the 429 ("later") did not.
    expect(done.integrationRequests[0]!.attempts).toBe(2);
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    expect(trail.filter((e) => e.action === 'deletion.requested').map((e) => e.summary)).toEqual([
      expect.stringContaining('HTTP 503: down'),
      expect.stringContaining('Webhook rate limit (HTTP 429)'),
      expect.stringContaining('Webhook answered HTTP 204'),
    ]);
  });

  it('puts a deletion off for a minute when a 429 names no wait, keeping its attempts', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /busy', () => ({ status: 429, body: { message: 'slow down' } }));
    await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/busy` } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'busy@example.com',
    });
    const deadline = Date.now() + 15_000;
    while (hooks.callsTo('POST /busy').length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 25));
    const sentAt = Date.now();
    const ir = await env.db.prisma.integrationRequest.findFirstOrThrow({ where: { deletionRequestId: created.id } });
    // The step has ended once its lease is handed back with the next attempt set.
    let settled = await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: ir.id } });
    while (settled.lockedBy !== null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      settled = await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: ir.id } });
    }
    expect(settled).toMatchObject({ status: 'PENDING', attempts: 0, lockedBy: null });
    const waitMs = settled.nextAttemptAt!.getTime() - sentAt;
    expect(waitMs).toBeGreaterThan(55_000);
    expect(waitMs).toBeLessThan(65_000);
    expect(hooks.callsTo('POST /busy')).toHaveLength(1);
  });

  it("fails at once on a permanent 4xx with the destination's message, and a member can retry it", async () => {
    const { org, caller } = await setup();
    let reject = true;
    hooks.on('POST /auth', () => (reject ? { status: 401, body: { error: 'invalid token' } } : { status: 200 }));
    await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/auth` } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'auth@example.com',
    });
    const failed = await waitForRequest(env, created.id);
    expect(failed.status).toBe('FAILED');
    expect(failed.integrationRequests[0]).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      lastError: 'HTTP 401: invalid token',
    });
    reject = false;
    await caller.deletionRequests.retry({ deletionRequestId: created.id });
    const retried = await waitForRequest(env, created.id);
    expect(retried.status).toBe('SUCCESS');
  });

  it("redacts the account's secrets from what a destination says back, however short, and whatever the field is called", async () => {
    const { org, caller } = await setup();
    // A destination that repeats what it was sent in its error: the token, the user name and a 3-digit PIN.
    hooks.on('POST /echo', (call) => ({
      status: 400,
      body: {
        error: `refused ${call.headers.authorization} for ${call.headers['x-user']} pin ${call.headers['x-pin']}`,
      },
    }));
    await webhook(
      caller,
      org.workspace.id,
      {
        initiate: {
          url: `${hooks.url}/echo`,
          headers: { authorization: 'Bearer {{token}}', 'x-user': '{{user}}', 'x-pin': '{{pin}}' },
        },
      },
      { token: 'echoed-token-value-1234', user: 'svc-deleter', pin: '907' },
    );
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'echo@example.com',
    });
    const failed = await waitForRequest(env, created.id);
    expect(failed.integrationRequests[0]).toMatchObject({
      status: 'FAILED',
      lastError: 'HTTP 400: refused Bearer [redacted] for [redacted] pin [redacted]',
    });
    const shown = JSON.stringify([failed, await caller.deletionRequests.auditTrail({ deletionRequestId: created.id })]);
    for (const secret of ['echoed-token-value-1234', 'svc-deleter', 'pin 907']) expect(shown).not.toContain(secret);
  });

  it("blanks the subject's identifier out of what a destination says back, as the request's status reason and the audit summary show it", async () => {
    const { org, caller } = await setup();
    // A destination whose error repeats the identifier it was sent, folded to lower case as many do.
    hooks.on('POST /echo-subject', (call) => ({
      status: 422,
      body: { error: `no account for ${(JSON.parse(call.body) as { identifier: string }).identifier.toLowerCase()}` },
    }));
    await webhook(caller, org.workspace.id, {
      initiate: { url: `${hooks.url}/echo-subject`, body: '{"identifier": "{{identifier}}"}' },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'Echo.Subject@Example.com',
    });
    const failed = await waitForRequest(env, created.id);
    expect(failed.integrationRequests[0]).toMatchObject({
      status: 'FAILED',
      lastError: 'HTTP 422: no account for [identifier]',
    });
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const summaries = JSON.stringify([failed.statusReason, failed.integrationRequests, trail.map((e) => e.summary)]);
    expect(summaries).toContain('[identifier]');
    expect(summaries.toLowerCase()).not.toContain('echo.subject@example.com');
  });

  it('stores an answer PostgreSQL could not take as sent (U+0000, half an emoji at the length limit) and calls once', async () => {
    const { org, caller } = await setup();
    // The recorded body is cut at 4,096 UTF-16 units: the emoji's first half is the last one kept.
    const head = JSON.stringify({ error: 'bad\u0000byte', pad: '' }).slice(0, -2);
    const body = { error: 'bad\u0000byte', pad: `${'a'.repeat(4095 - head.length)}\u{1F600} tail` };
    hooks.on('POST /odd', () => ({ status: 400, body }));
    await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/odd` } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'odd@example.com',
    });
    const failed = await waitForRequest(env, created.id);
    expect(failed.integrationRequests[0]).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      lastError: 'HTTP 400: bad\uFFFDbyte',
    });
    expect(hooks.callsTo('POST /odd')).toHaveLength(1);
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const step = trail.find((e) => e.action === 'deletion.requested')!;
    const recorded = (step.details as { exchanges: { response: { body: string } }[] }).exchanges[0]!.response.body;
    expect(recorded).toContain('a… [');
  });

  it('stops a deletion whose attempts never recorded an outcome, without calling the destination again', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /once', () => ({ status: 200 }));
    await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/once` } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'crash-loop@example.com',
    });
    const done = await waitForRequest(env, created.id);
    expect(hooks.callsTo('POST /once')).toHaveLength(1);
    // As if a worker had died during each of the budget's attempts (4 here): due again, budget spent.
    await env.db.prisma.integrationRequest.update({
      where: { id: done.integrationRequests[0]!.id },
      data: { status: 'STAGING', attempts: 4, completedAt: null, nextAttemptAt: new Date() },
    });
    await env.db.prisma.deletionRequest.update({
      where: { id: created.id },
      data: { status: 'STAGING', completedAt: null },
    });
    const stopped = await waitForRequest(env, created.id);
    expect(stopped.integrationRequests[0]).toMatchObject({
      status: 'ERROR',
      lastError: expect.stringContaining('Stopped after 4 attempts whose outcome was never recorded'),
    });
    expect(hooks.callsTo('POST /once')).toHaveLength(1);
  });

  it('gives up after the configured number of attempts', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /down', () => ({ status: 500 }));
    await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/down` } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'down@example.com',
    });
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('FAILED');
    expect(done.integrationRequests[0]).toMatchObject({
      attempts: 4,
      lastError: expect.stringContaining('Gave up after 4 attempts'),
    });
    expect(hooks.callsTo('POST /down')).toHaveLength(4);
    // The last attempt's entry says it gave up (not "retry") and ended the integration request as FAILED.
    const trail = await env.db.prisma.auditLog.findMany({
      where: { integrationRequestId: done.integrationRequests[0]!.id },
      orderBy: { id: 'asc' },
      select: { action: true, outcome: true, summary: true, details: true, exchanges: true },
    });
    expect(trail.map((e) => e.action)).toEqual(Array(4).fill('deletion.requested'));
    expect(trail.map((e) => (recordedDetails(e.details, e.exchanges) as { result: string }).result)).toEqual([
      'retry',
      'retry',
      'retry',
      'gave up after 4 attempts',
    ]);
    expect(trail.at(-1)).toMatchObject({
      outcome: 'FAILED',
      summary: expect.stringMatching(/^Attempt 4: Gave up after 4 attempts/),
    });
  });

  it('treats a network error as transient', async () => {
    const { org, caller } = await setup();
    await webhook(caller, org.workspace.id, { initiate: { url: 'http://127.0.0.1:9/unreachable' } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'net@example.com',
    });
    const done = await waitForRequest(env, created.id);
    expect(done.integrationRequests[0]).toMatchObject({
      status: 'FAILED',
      attempts: 4,
      lastError: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('polls an async webhook by tracking id until it reports success', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /jobs', () => ({ status: 202, body: { data: { job: { id: 'job-77' } } } }));
    hooks.on('GET /jobs/*', (_c, nth) => ({ status: 200, body: { state: nth < 3 ? 'running' : 'done' } }));
    await webhook(caller, org.workspace.id, {
      mode: 'async',
      initiate: { url: `${hooks.url}/jobs`, trackingIdPath: '$.data.job.id' },
      status: {
        method: 'GET',
        url: `${hooks.url}/jobs/{{trackingId}}`,
        statusPath: '$.state',
        successValues: ['done'],
      },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'async@example.com',
    });
    const pending = await waitForRequest(env, created.id, ['PENDING', 'PROCESSING', 'SUCCESS']);
    expect(['PENDING', 'PROCESSING', 'SUCCESS']).toContain(pending.status);
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    expect(done.integrationRequests[0]).toMatchObject({ trackingId: 'job-77', attempts: 1 });
    expect(hooks.callsTo('GET /jobs/*').length).toBe(3);
    expect(hooks.callsTo('GET /jobs/*')[0]!.path).toBe('/jobs/job-77');
    for (const poll of hooks.callsTo('GET /jobs/*'))
      expect(poll.headers['idempotency-key']).toBe(`${done.integrationRequests[0]!.id}:status`);
  });

  it('cuts a wait named beyond the maximum age to it, and fails a deletion still put off then', async () => {
    const slowEnv = await createTestEnv({ ...FAST_ENGINE_CONFIG, ASYNC_MAX_AGE_HOURS: String(1 / 3600) });
    const slowWorker = await startTestWorker(slowEnv);
    try {
      const org = await seedOrganization(slowEnv.deps);
      const { caller } = callerFor(slowEnv.deps, { pat: org.pat });
      // "Come back tomorrow", every time.
      hooks.on('POST /tomorrow', () => ({ status: 429, headers: { 'retry-after': '86400' } }));
      await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/tomorrow` } });
      const created = await caller.deletionRequests.createInWorkspace({
        workspaceId: org.workspace.id,
        identifier: 'tomorrow@example.com',
      });
      const done = await waitForRequest(slowEnv, created.id);
      expect(done.integrationRequests[0]).toMatchObject({
        status: 'FAILED',
        attempts: 0,
        lastError: expect.stringMatching(/^Still waiting after .* hours: Webhook rate limit \(HTTP 429\)/),
      });
      // Tried again at the limit, not a day later.
      expect(hooks.callsTo('POST /tomorrow')).toHaveLength(2);
    } finally {
      await slowWorker.stop();
      await slowEnv.close();
    }
  });

  it('fails an async job that never finishes within the maximum age', async () => {
    const slowEnv = await createTestEnv({ ...FAST_ENGINE_CONFIG, ASYNC_MAX_AGE_HOURS: String(0.3 / 3600) });
    const slowWorker = await startTestWorker(slowEnv);
    try {
      const org = await seedOrganization(slowEnv.deps);
      const { caller } = callerFor(slowEnv.deps, { pat: org.pat });
      hooks.on('POST /forever', () => ({ status: 202, body: { id: 'f1' } }));
      hooks.on('GET /forever/*', () => ({ status: 200, body: { state: 'queued' } }));
      await webhook(caller, org.workspace.id, {
        mode: 'async',
        initiate: { url: `${hooks.url}/forever`, trackingIdPath: '$.id' },
        status: { method: 'GET', url: `${hooks.url}/forever/{{trackingId}}`, statusPath: '$.state' },
      });
      const created = await caller.deletionRequests.createInWorkspace({
        workspaceId: org.workspace.id,
        identifier: 'forever@example.com',
      });
      const done = await waitForRequest(slowEnv, created.id);
      expect(done.integrationRequests[0]).toMatchObject({
        status: 'FAILED',
        lastError: expect.stringContaining('No final status after'),
      });
    } finally {
      await slowWorker.stop();
      await slowEnv.close();
    }
  });

  it('a retry starts the age limit again: an async deletion retried weeks later waits for its new job', async () => {
    const { org, caller } = await setup();
    let accept = false;
    hooks.on('POST /late-jobs', () =>
      accept ? { status: 202, body: { id: 'late-1' } } : { status: 400, body: { error: 'not yet' } },
    );
    hooks.on('GET /late-jobs/*', () => ({ status: 200, body: { state: 'running' } }));
    await webhook(caller, org.workspace.id, {
      mode: 'async',
      initiate: { url: `${hooks.url}/late-jobs`, trackingIdPath: '$.id' },
      status: { method: 'GET', url: `${hooks.url}/late-jobs/{{trackingId}}`, statusPath: '$.state' },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'late@example.com',
    });
    const failed = await waitForRequest(env, created.id);
    const irId = failed.integrationRequests[0]!.id;
    expect(failed.integrationRequests[0]).toMatchObject({ status: 'FAILED' });
    // Past the age limit (35 days by default) since it was first sent.
    const longAgo = new Date(Date.now() - 36 * 86_400_000);
    await env.db.prisma.integrationRequest.update({
      where: { id: irId },
      data: { startedAt: longAgo, createdAt: longAgo },
    });
    accept = true;
    await caller.deletionRequests.retry({ deletionRequestId: created.id });
    const deadline = Date.now() + 10_000;
    while (hooks.callsTo('GET /late-jobs/*').length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hooks.callsTo('GET /late-jobs/*').length).toBeGreaterThanOrEqual(2);
    const running = await waitForIntegrationRequest(env, irId, ['PENDING', 'PROCESSING']);
    expect(running).toMatchObject({ trackingId: 'late-1', lastError: null });
  });

  it('does not record a cancel when the row was taken from it while the destination answered', async () => {
    const { org, caller } = await setup();
    let steal: (() => Promise<unknown>) | undefined;
    hooks.on('POST /s-jobs', () => ({ status: 202, body: { id: 's-1' } }));
    hooks.on('GET /s-jobs/*', () => ({ status: 200, body: { state: 'running' } }));
    hooks.on('DELETE /s-jobs/*', () => {
      // The row is taken while the destination is still answering (well before it answers).
      void steal?.();
      return { status: 200, delayMs: 500 };
    });
    await webhook(caller, org.workspace.id, {
      mode: 'async',
      initiate: { url: `${hooks.url}/s-jobs`, trackingIdPath: '$.id' },
      status: { method: 'GET', url: `${hooks.url}/s-jobs/{{trackingId}}`, statusPath: '$.state' },
      cancel: { method: 'DELETE', url: `${hooks.url}/s-jobs/{{trackingId}}` },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'stolen@example.com',
    });
    const irId = created.integrationRequests![0]!.id;
    await waitForIntegrationRequest(env, irId, ['PENDING', 'PROCESSING']);
    await worker.stop();
    try {
      // As if the cancel's lease had run out during the call and a worker had taken the row.
      steal = async () => {
        await env.db.prisma.integrationRequest.update({
          where: { id: irId },
          data: { lockedBy: 'another-worker', lockedUntil: new Date(Date.now() + 60_000) },
        });
      };
      await expect(
        caller.deletionRequests.cancelIntegration({ deletionRequestId: created.id, integrationRequestId: irId }),
      ).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining('changed while it was being canceled'),
      });
      const after = await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: irId } });
      expect(after.status).not.toBe('CANCELED');
      const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
      expect(trail.filter((e) => e.action === 'deletion.cancel' && e.outcome === 'CANCELED')).toEqual([]);
    } finally {
      await env.db.prisma.integrationRequest.update({
        where: { id: irId },
        data: { lockedBy: null, lockedUntil: null },
      });
      worker = await startTestWorker(env);
    }
  });

  it('cancels an accepted async job through the destination, and refuses where it cannot', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /c-jobs', () => ({ status: 202, body: { id: 'c-1' } }));
    hooks.on('GET /c-jobs/*', () => ({ status: 200, body: { state: 'running' } }));
    hooks.on('DELETE /c-jobs/*', () => ({ status: 200 }));
    await webhook(caller, org.workspace.id, {
      mode: 'async',
      initiate: { url: `${hooks.url}/c-jobs`, trackingIdPath: '$.id' },
      status: { method: 'GET', url: `${hooks.url}/c-jobs/{{trackingId}}`, statusPath: '$.state' },
      cancel: { method: 'DELETE', url: `${hooks.url}/c-jobs/{{trackingId}}` },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'cancel@example.com',
    });
    const accepted = await waitForIntegrationRequest(env, created.integrationRequests![0]!.id, [
      'PENDING',
      'PROCESSING',
    ]);
    expect(accepted.trackingId).toBe('c-1');
    const result = await cancelBetweenPolls(caller, created.id);
    expect(result!.integrationRequestIds).toEqual([accepted.id]);
    expect(result!.deletionRequest.integrationRequests![0]!.status).toBe('CANCELED');
    expect(hooks.callsTo('DELETE /c-jobs/*')[0]!.path).toBe('/c-jobs/c-1');
    // Each kind of call has its own Idempotency-Key: a receiver keeping answers by key tells them apart.
    expect(hooks.callsTo('POST /c-jobs')[0]!.headers['idempotency-key']).toBe(accepted.id);
    expect(hooks.callsTo('DELETE /c-jobs/*')[0]!.headers['idempotency-key']).toBe(`${accepted.id}:cancel`);
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('CANCELED');
    await expect(caller.deletionRequests.cancel({ deletionRequestId: created.id })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it("cancels each of a person's jobs at a destination that takes emails: every job by its own id and key", async () => {
    const { org, caller } = await setup();
    // One job per email, named after it; running until canceled.
    hooks.on('POST /m-jobs', (call) => ({
      status: 202,
      body: { id: `m-${(JSON.parse(call.body) as { email: string }).email.split('@')[0]}` },
    }));
    hooks.on('GET /m-jobs/*', () => ({ status: 200, body: { state: 'running' } }));
    hooks.on('DELETE /m-jobs/*', () => ({ status: 200 }));
    const integration = await webhook(caller, org.workspace.id, {
      mode: 'async',
      initiate: { url: `${hooks.url}/m-jobs`, body: '{"email":"{{identifier}}"}', trackingIdPath: '$.id' },
      status: { method: 'GET', url: `${hooks.url}/m-jobs/{{trackingId}}`, statusPath: '$.state' },
      cancel: { method: 'DELETE', url: `${hooks.url}/m-jobs/{{trackingId}}` },
    });
    await caller.identities.setIntegrationType({ integrationId: integration.id, consumesType: 'email' });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'first@example.com',
      identifiers: [{ type: 'email', value: 'second@example.org' }],
    });
    const irId = created.integrationRequests![0]!.id;
    const accepted = await waitForIntegrationRequest(env, irId, ['PENDING', 'PROCESSING']);
    expect(accepted.trackingId).toContain('m-second');
    // The API shows the destination's job ids, not the stored form that keeps them by value.
    const shown = await caller.deletionRequests.get({ deletionRequestId: created.id });
    expect(shown.integrationRequests![0]!.trackingId).toBe('m-first, m-second');
    const result = await cancelBetweenPolls(caller, created.id);
    expect(result!.deletionRequest.integrationRequests![0]!.status).toBe('CANCELED');
    // Both jobs were canceled by their own ids (not by the tracking id that lists them both), each under its own key.
    const cancels = hooks.callsTo('DELETE /m-jobs/*');
    expect(cancels.map((c) => c.path).sort()).toEqual(['/m-jobs/m-first', '/m-jobs/m-second']);
    const sent = hooks.callsTo('POST /m-jobs').map((c) => c.headers['idempotency-key']);
    expect(new Set(sent).size).toBe(2);
    expect(cancels.map((c) => c.headers['idempotency-key']).sort()).toEqual(sent.map((key) => `${key}:cancel`).sort());
    // What the cancel recorded names neither email.
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const cancel = trail.find((e) => e.action === 'deletion.cancel' && e.outcome === 'CANCELED')!;
    expect(cancel.summary).toContain('identifier 2 of 2');
    const recorded = await env.db.prisma.auditLog.findMany({
      where: { deletionRequestId: created.id, action: 'deletion.cancel' },
    });
    expect(JSON.stringify(recorded.map((e) => [e.summary, e.details]))).not.toMatch(
      /first@example\.com|second@example\.org/,
    );
  });

  it('refuses to cancel an accepted job at a destination without a cancel operation', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /nc-jobs', () => ({ status: 202, body: { id: 'nc-1' } }));
    hooks.on('GET /nc-jobs/*', () => ({ status: 200, body: { state: 'running' } }));
    await webhook(caller, org.workspace.id, {
      mode: 'async',
      initiate: { url: `${hooks.url}/nc-jobs`, trackingIdPath: '$.id' },
      status: { method: 'GET', url: `${hooks.url}/nc-jobs/{{trackingId}}`, statusPath: '$.state' },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'nocancel@example.com',
    });
    const accepted = await waitForIntegrationRequest(env, created.integrationRequests![0]!.id, [
      'PENDING',
      'PROCESSING',
    ]);
    let error: unknown;
    for (let i = 0; i < 40; i++) {
      error = await caller.deletionRequests
        .cancelIntegration({ deletionRequestId: created.id, integrationRequestId: accepted.id })
        .catch((e) => e);
      if (!/being processed/.test((error as Error).message)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('does not support canceling') });
    const after = await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: accepted.id } });
    expect(['PENDING', 'PROCESSING']).toContain(after.status);
  });

  it('retries all the failed integrations of a request or none: one that changed meanwhile leaves the others failed', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /no-a', () => ({ status: 403 }));
    hooks.on('POST /no-b', () => ({ status: 403 }));
    for (const name of ['CRM A', 'CRM B'])
      await caller.integrations.create({
        workspaceId: org.workspace.id,
        name,
        type: 'WEBHOOK',
        config: { initiate: { url: `${hooks.url}/no-${name.at(-1)!.toLowerCase()}` } },
      });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'both-or-none@example.com',
    });
    const failed = await waitForRequest(env, created.id);
    expect(failed.integrationRequests!.map((ir) => ir.status)).toEqual(['FAILED', 'FAILED']);
    const ids = failed.integrationRequests!.map((ir) => ir.id);
    // Whichever is re-queued second finds it changed (as if another member's retry had just taken it).
    await env.db.prisma.$executeRawUnsafe(`CREATE FUNCTION skip_requeue() RETURNS trigger AS $$
      BEGIN
        IF NEW."deletionRequestId" = '${created.id}' AND NEW.status = 'STAGING' AND EXISTS (
          SELECT 1 FROM "IntegrationRequest" o WHERE o."deletionRequestId" = NEW."deletionRequestId" AND o.id <> NEW.id AND o.status = 'STAGING'
        ) THEN RETURN NULL; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await env.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER skip_requeue BEFORE UPDATE ON "IntegrationRequest" FOR EACH ROW EXECUTE FUNCTION skip_requeue()`,
    );
    try {
      await expect(caller.deletionRequests.retry({ deletionRequestId: created.id })).rejects.toMatchObject({
        code: 'CONFLICT',
      });
    } finally {
      await env.db.prisma.$executeRawUnsafe(`DROP TRIGGER skip_requeue ON "IntegrationRequest"`);
      await env.db.prisma.$executeRawUnsafe(`DROP FUNCTION skip_requeue()`);
    }
    const after = await env.db.prisma.integrationRequest.findMany({ where: { id: { in: ids } } });
    expect(after.map((ir) => ir.status)).toEqual(['FAILED', 'FAILED']);
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    expect(trail.filter((e) => e.action === 'deletion.retried')).toEqual([]);
  });

  it('a retry with the submitted configuration sends the old call again; with the current one, the fixed call', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /old-endpoint', () => ({ status: 410, body: { error: 'moved' } }));
    hooks.on('POST /new-endpoint', () => ({ status: 200 }));
    const integration = await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/old-endpoint` } });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'moved@example.com',
    });
    expect((await waitForRequest(env, created.id)).status).toBe('FAILED');
    await caller.integrations.update({
      integrationId: integration.id,
      name: 'Internal CRM v2',
      config: { initiate: { url: `${hooks.url}/new-endpoint` } },
    });

    await caller.deletionRequests.retry({ deletionRequestId: created.id, configuration: 'submitted' });
    expect((await waitForRequest(env, created.id)).status).toBe('FAILED');
    expect(hooks.callsTo('POST /old-endpoint')).toHaveLength(2);

    await caller.deletionRequests.retryIntegration({
      deletionRequestId: created.id,
      integrationRequestId: created.integrationRequests![0]!.id,
      configuration: 'current',
    });
    const done = await waitForRequest(env, created.id);
    expect(done).toMatchObject({
      status: 'SUCCESS',
      integrationRequests: [{ integrationName: 'Internal CRM v2', status: 'SUCCESS' }],
    });
    expect(hooks.callsTo('POST /new-endpoint')).toHaveLength(1);
    expect(hooks.callsTo('POST /old-endpoint')).toHaveLength(2);

    // Attempts are numbered across the retries, each naming the configuration it ran with.
    const attempts = await env.db.prisma.auditLog.findMany({
      where: { deletionRequestId: created.id, action: 'deletion.requested' },
      orderBy: { id: 'asc' },
      select: { summary: true, details: true, exchanges: true },
    });
    expect(attempts.map((a) => a.summary.split(':')[0])).toEqual(['Attempt 1', 'Attempt 2', 'Attempt 3']);
    const configurations = attempts.map(
      (a) => (recordedDetails(a.details, a.exchanges) as { configuration: string }).configuration,
    );
    expect(configurations.slice(0, 2)).toEqual(['as submitted', 'as submitted']);
    expect(configurations[2]).toMatch(/^current at retry, \d{4}-\d{2}-\d{2}T/);
    const detail = await caller.dashboard.requestDetail({ deletionRequestId: created.id });
    expect(detail.integrationRequests[0]).toMatchObject({
      attempts: 1,
      totalAttempts: 3,
      configTakenAt: expect.any(String),
    });
  });

  it('makes the outcome explicit when the workspace has no enabled integrations, and fans out on retry', async () => {
    const { org, caller } = await setup();
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'nobody@example.com',
    });
    expect(created).toMatchObject({
      status: 'FAILED',
      statusReason: expect.stringContaining('no enabled integrations'),
      integrationRequests: [],
    });
    hooks.on('POST /late', () => ({ status: 200 }));
    await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/late` } });
    await caller.deletionRequests.retry({ deletionRequestId: created.id });
    const done = await waitForRequest(env, created.id, ['SUCCESS']);
    expect(done.integrationRequests).toHaveLength(1);
  });

  it('skips disabled integrations and snapshots the configuration at submit time', async () => {
    const { org, caller } = await setup();
    hooks.on('POST /v1', () => ({ status: 200 }));
    hooks.on('POST /v2', () => ({ status: 200 }));
    const enabled = await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/v1` } });
    const disabled = await webhook(caller, org.workspace.id, { initiate: { url: `${hooks.url}/never` } });
    await caller.integrations.setEnabled({ integrationId: disabled.id, enabled: false });
    await worker.stop();
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'snap@example.com',
    });
    await caller.integrations.update({ integrationId: enabled.id, config: { initiate: { url: `${hooks.url}/v2` } } });
    worker = await startTestWorker(env);
    const done = await waitForRequest(env, created.id);
    expect(done.integrationRequests.map((i) => i.integrationId)).toEqual([enabled.id]);
    expect(hooks.callsTo('POST /v1')).toHaveLength(1);
    expect(hooks.callsTo('POST /v2')).toHaveLength(0);
  });
});
