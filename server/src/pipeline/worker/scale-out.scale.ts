import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectCustomerDatabase, createCustomerDatabase, type CustomerDatabase } from '../../test/customer-db';
import { startWebhookServer, type WebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { METRICS_AUTH, startServiceProcess, stopServiceProcess, type ServiceProcess } from '../../test/service-process';

/**
 * The service as separate OS processes on one PostgreSQL: an API process and worker
 * processes (`ROLE=api`, `ROLE=worker`), killed and restarted the way deployments are.
 */

const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const TERMINAL = ['SUCCESS', 'FAILED', 'ERROR', 'CANCELED'];

let env: TestEnv;
let hooks: WebhookServer;
let customer: CustomerDatabase;
let webhookDelayMs = 0;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv({ ENCRYPTION_KEY });
  hooks = await startWebhookServer();
  hooks.on('POST /erase', () => ({ status: 200, body: { ok: true }, delayMs: webhookDelayMs }));
  customer = await createCustomerDatabase();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => stopServiceProcess(p)));
});
afterAll(async () => {
  await hooks?.close();
  await customer?.close();
  await env?.close();
});

async function start(role: 'api' | 'worker', extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const service = await startServiceProcess(env.db.url, { ROLE: role, ENCRYPTION_KEY, ...extra });
  running.push(service);
  return service;
}

/** A workspace with a webhook and a PostgreSQL integration, and `count` subjects in the customer database. */
async function workspaceWithSubjects(count: number) {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: {
      mode: 'sync',
      initiate: { method: 'POST', url: `${hooks.url}/erase`, body: '{"email":"{{identifier}}"}' },
    },
  });
  await connectCustomerDatabase(caller, org.workspace.id, customer);
  const tag = randomBytes(3).toString('hex');
  const subjects = Array.from({ length: count }, (_, i) => `s${i}-${tag}@example.com`);
  await customer.pool.query(`INSERT INTO users (email, name) SELECT e, 'Name' FROM unnest($1::text[]) e`, [subjects]);
  await customer.pool.query(
    `INSERT INTO orders (user_id, customer_email, total) SELECT id, email, 10 FROM users WHERE email = ANY($1)`,
    [subjects],
  );
  return { org, subjects };
}

/** Creates one deletion request per subject through the API process's public REST API. */
async function createAll(
  api: ServiceProcess,
  org: Awaited<ReturnType<typeof workspaceWithSubjects>>['org'],
  subjects: string[],
) {
  let next = 0;
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < subjects.length) {
        const identifier = subjects[next++]!;
        const res = await fetch(`${api.url}/api/public/deletion-requests`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
          body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier }),
        });
        expect(res.status).toBe(201);
        ids.push(((await res.json()) as { id: string }).id);
      }
    }),
  );
  return ids;
}

async function waitUntilFinished(workspaceId: string, count: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const finished = await env.db.prisma.deletionRequest.count({
      where: { workspaceId, status: { in: TERMINAL as never } },
    });
    if (finished === count) return;
    if (Date.now() > deadline) throw new Error(`only ${finished}/${count} requests finished in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function subjectRowsLeft(subjects: string[]) {
  return customer.count(
    `SELECT (SELECT count(*) FROM users WHERE email = ANY($1)) + (SELECT count(*) FROM orders WHERE customer_email = ANY($1))`,
    [subjects],
  );
}

async function webhookRequestIds(workspaceId: string) {
  const rows = await env.db.prisma.integrationRequest.findMany({
    where: { integrationType: 'WEBHOOK', deletionRequest: { workspaceId } },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

describe('one API process and two worker processes on one PostgreSQL', () => {
  it('process every integration request exactly once and share the load', async () => {
    webhookDelayMs = 15;
    hooks.calls.length = 0;
    const { org, subjects } = await workspaceWithSubjects(150);
    const api = await start('api');
    const workers = [await start('worker'), await start('worker')];
    await createAll(api, org, subjects);
    await waitUntilFinished(org.workspace.id, subjects.length, 90_000);

    const statuses = await env.db.prisma.deletionRequest.groupBy({
      by: ['status'],
      where: { workspaceId: org.workspace.id },
      _count: true,
    });
    expect(statuses).toEqual([{ status: 'SUCCESS', _count: subjects.length }]);
    // The webhook driver sends the integration request id as Idempotency-Key.
    const callsPerKey = new Map<string, number>();
    for (const call of hooks.callsTo('POST /erase')) {
      const key = String(call.headers['idempotency-key']);
      callsPerKey.set(key, (callsPerKey.get(key) ?? 0) + 1);
    }
    const ids = await webhookRequestIds(org.workspace.id);
    expect(ids).toHaveLength(subjects.length);
    expect(ids.filter((id) => callsPerKey.get(id) !== 1)).toEqual([]);
    expect(callsPerKey.size).toBe(subjects.length);
    expect(await subjectRowsLeft(subjects)).toBe(0);
    // Each worker ran a real share of the 300 steps.
    const shares = await Promise.all(workers.map((w) => w.counter('dds_integration_outcomes_total')));
    expect(shares.reduce((a, b) => a + b, 0)).toBe(subjects.length * 2);
    for (const share of shares) expect(share).toBeGreaterThan(subjects.length * 0.2);
    // The API process reports its requests by route, and the queue as drained.
    const metrics = await (await fetch(`${api.url}/metrics`, { headers: METRICS_AUTH })).text();
    expect(metrics).toMatch(
      /dds_http_requests_total\{method="POST",route="\/api\/public\/deletion-requests",status="201"\} 150/,
    );
    expect(metrics).not.toMatch(/dds_queue_depth\{[^}]*state="due"\} [1-9]/);
  });

  it('finish every request when worker processes are killed mid-run (leases expire, new workers take over)', async () => {
    webhookDelayMs = 20;
    const { org, subjects } = await workspaceWithSubjects(120);
    const fast = { LEASE_SECONDS: '2', WORKER_CONCURRENCY: '8' };
    const api = await start('api');
    const workers = [await start('worker', fast), await start('worker', fast)];
    const creating = createAll(api, org, subjects);
    let kills = 0;
    const chaos = (async () => {
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 300 + Math.random() * 700));
        const victim = workers.splice(Math.floor(Math.random() * workers.length), 1)[0]!;
        victim.kill('SIGKILL');
        await victim.exited;
        kills++;
        workers.push(await start('worker', fast));
      }
    })();
    await Promise.all([creating, chaos]);
    expect(kills).toBe(4);
    await waitUntilFinished(org.workspace.id, subjects.length, 90_000);
    const notDone = await env.db.prisma.deletionRequest.findMany({
      where: { workspaceId: org.workspace.id, status: { not: 'SUCCESS' } },
      select: { id: true, status: true },
    });
    expect(notDone).toEqual([]);
    expect(await subjectRowsLeft(subjects)).toBe(0);
    // At least once: a step cut off by a kill may be sent again, never skipped.
    const ids = await webhookRequestIds(org.workspace.id);
    const called = new Set(hooks.callsTo('POST /erase').map((c) => String(c.headers['idempotency-key'])));
    expect(ids.filter((id) => !called.has(id))).toEqual([]);
    // Six worker processes start in this test (about 5 to 15 s each on a loaded 2-core machine),
    // then up to 90 s to finish: more than the suite's 120 s default.
  }, 240_000);
});

describe('graceful shutdown of a worker process (SIGTERM)', () => {
  async function inFlightSetup(count: number) {
    const { org, subjects } = await workspaceWithSubjects(count);
    const api = await start('api');
    return { org, subjects, api };
  }

  const lockedBy = async (pid: number, workspaceId: string) =>
    env.db.prisma.integrationRequest.count({
      where: { lockedBy: { contains: `:${pid}:` }, deletionRequest: { workspaceId } },
    });

  it('lets in-flight steps finish within the grace period', async () => {
    webhookDelayMs = 400;
    const { org, subjects, api } = await inFlightSetup(6);
    const worker = await start('worker', { WORKER_CONCURRENCY: '4', SHUTDOWN_GRACE_MS: '10000' });
    const before = hooks.callsTo('POST /erase').length;
    await createAll(api, org, subjects);
    while (hooks.callsTo('POST /erase').length === before) await new Promise((r) => setTimeout(r, 10));
    worker.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    // Every webhook call that had started was allowed to finish and was recorded.
    const called = new Set(
      hooks
        .callsTo('POST /erase')
        .slice(before)
        .map((c) => String(c.headers['idempotency-key'])),
    );
    const finished = await env.db.prisma.integrationRequest.findMany({
      where: { id: { in: [...called] } },
      select: { status: true },
    });
    expect(finished.map((f) => f.status)).toEqual([...called].map(() => 'SUCCESS'));
    expect(await lockedBy(worker.child.pid!, org.workspace.id)).toBe(0);
    await start('worker');
    await waitUntilFinished(org.workspace.id, subjects.length, 60_000);
  });

  it('hands back the leases of steps still running when the grace period ends', async () => {
    webhookDelayMs = 3_000;
    const { org, subjects, api } = await inFlightSetup(4);
    const worker = await start('worker', { WORKER_CONCURRENCY: '4', SHUTDOWN_GRACE_MS: '200', LEASE_SECONDS: '60' });
    const before = hooks.callsTo('POST /erase').length;
    await createAll(api, org, subjects);
    while (hooks.callsTo('POST /erase').length < before + 2) await new Promise((r) => setTimeout(r, 10));
    worker.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    // Not waiting out a 60 s lease: the rows are free for the next worker at once.
    expect(await lockedBy(worker.child.pid!, org.workspace.id)).toBe(0);
    webhookDelayMs = 0;
    const started = Date.now();
    await start('worker');
    await waitUntilFinished(org.workspace.id, subjects.length, 30_000);
    expect(Date.now() - started).toBeLessThan(30_000);
    const statuses = await env.db.prisma.deletionRequest.findMany({
      where: { workspaceId: org.workspace.id },
      select: { status: true },
    });
    expect(statuses.every((s) => s.status === 'SUCCESS')).toBe(true);
  });
});
