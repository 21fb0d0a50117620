import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { connectDatabase, type Database } from './client';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';
import { processAlive } from './embedded-postmaster';
import { applyMigrations } from './migrate';
import { createKeyring } from '../lib/crypto';
import { createLogger } from '../lib/logger';
import { policyFromConfig } from '../lib/ssrf';
import { startWebhookServer, type WebhookServer } from '../test/fakes/webhook-server';
import { callerFor, seedOrganization } from '../test/harness';
import { METRICS_AUTH, startServiceProcess, stopServiceProcess, type ServiceProcess } from '../test/service-process';
import type { ServiceDeps } from '../services/deps';

/**
 * Faults injected into real processes: PostgreSQL killed and started again under load, the
 * terminal's Ctrl-C to the service's process group, SIGTERM after an outage, a start right
 * after SIGKILL. The service runs as `npm start` runs it (server/src/main.ts), its database
 * either a PostgreSQL this file kills at will or its own embedded one.
 */

const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const TERMINAL = ['SUCCESS', 'FAILED', 'ERROR', 'CANCELED'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let hooks: WebhookServer;
let webhookDelayMs = 0;
const running: ServiceProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  hooks = await startWebhookServer();
  hooks.on('POST /erase', () => ({ status: 200, body: { ok: true }, delayMs: webhookDelayMs }));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => stopServiceProcess(p)));
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  await hooks?.close();
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // As root, the embedded PostgreSQL runs as the postgres user, which must reach the directory.
  fs.chmodSync(dir, 0o755);
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Service dependencies (seeding, assertions) on the database at `url`. */
function depsOn(database: Database): ServiceDeps {
  const config = loadConfig({
    ENCRYPTION_KEY,
    DATABASE_URL: 'postgresql://unused',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    OUTBOUND_ALLOWLIST: '127.0.0.0/8,localhost',
  });
  return {
    prisma: database.prisma,
    keyring: createKeyring(config.encryptionKey),
    config,
    log: createLogger('silent'),
    policy: policyFromConfig(config),
  };
}

async function start(
  databaseUrl: string | null,
  env: Record<string, string> = {},
  detached = false,
): Promise<ServiceProcess> {
  const service = await startServiceProcess(databaseUrl, { ENCRYPTION_KEY, ...env }, { detached });
  running.push(service);
  return service;
}

async function webhookWorkspace(deps: ServiceDeps) {
  const org = await seedOrganization(deps);
  const { caller } = callerFor(deps, { pat: org.pat });
  await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: {
      mode: 'sync',
      initiate: { method: 'POST', url: `${hooks.url}/erase`, body: '{"email":"{{identifier}}"}' },
    },
  });
  return org;
}

type Org = Awaited<ReturnType<typeof webhookWorkspace>>;

function createRequest(api: ServiceProcess, org: Org, identifier: string): Promise<Response> {
  return fetch(`${api.url}/api/public/deletion-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
    body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier }),
  });
}

async function createAll(api: ServiceProcess, org: Org, identifiers: string[]): Promise<void> {
  for (const identifier of identifiers) expect((await createRequest(api, org, identifier)).status).toBe(201);
}

async function waitUntilFinished(
  deps: ServiceDeps,
  workspaceId: string,
  count: number,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const finished = await deps.prisma.deletionRequest.count({
      where: { workspaceId, status: { in: TERMINAL as never } },
    });
    if (finished === count) return;
    if (Date.now() > deadline) throw new Error(`only ${finished}/${count} requests finished in time`);
    await sleep(100);
  }
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const readyz = (service: ServiceProcess) =>
  fetch(`${service.url}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

/**
 * Every subject's deletion reached the webhook, and every delivery of one subject carried
 * that subject's one Idempotency-Key (its integration request id): a repeat is harmless.
 */
async function expectDeliveredWithOneKeyEach(deps: ServiceDeps, workspaceId: string, identifiers: string[]) {
  const rows = await deps.prisma.integrationRequest.findMany({
    where: { deletionRequest: { workspaceId } },
    select: { id: true, status: true, deletionRequest: { select: { identifier: true } } },
  });
  expect(rows.filter((r) => r.status !== 'SUCCESS')).toEqual([]);
  const keyOf = new Map(rows.map((r) => [r.deletionRequest.identifier, r.id]));
  const mine = new Set(identifiers);
  const calls = hooks.callsTo('POST /erase').map((c) => ({
    email: (JSON.parse(c.body) as { email: string }).email,
    key: String(c.headers['idempotency-key']),
  }));
  const wrongKey = calls.filter((c) => mine.has(c.email) && keyOf.get(c.email) !== c.key);
  expect(wrongKey).toEqual([]);
  const delivered = new Set(calls.filter((c) => mine.has(c.email)).map((c) => c.email));
  expect(identifiers.filter((i) => !delivered.has(i))).toEqual([]);
  return calls.filter((c) => mine.has(c.email));
}

describe('PostgreSQL killed and started again under load', () => {
  let pgDir: string;
  let database: EmbeddedDatabase;
  let db: Database;

  beforeAll(async () => {
    pgDir = tempDir('dds-failover-');
    database = await startEmbeddedPostgres({
      dataDir: path.join(pgDir, 'data'),
      database: 'failover',
      detached: false,
    });
    await applyMigrations(database.url);
    db = connectDatabase(database.url, 4);
    cleanups.push(async () => {
      await db.close();
      await database.stop();
    });
  });

  /** Starts PostgreSQL again on the same port and data directory (a restart, or a failover to the same address). */
  async function restartDatabase(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        database = await startEmbeddedPostgres({
          dataDir: path.join(pgDir, 'data'),
          port: database.port,
          database: 'failover',
          detached: false,
        });
        return;
      } catch (error) {
        // Backends of the killed server may hold its shared memory for a moment.
        if (attempt > 40) throw error;
        await sleep(250);
      }
    }
  }

  it('the service stays up, answers 503 meanwhile, loses no step and recovers by itself', async () => {
    webhookDelayMs = 30;
    const deps = depsOn(db);
    const org = await webhookWorkspace(deps);
    const service = await start(database.url, {
      WORKER_CONCURRENCY: '8',
      LEASE_SECONDS: '5',
      TOKEN_CACHE_SECONDS: '0',
    });
    const tag = randomBytes(3).toString('hex');
    const identifiers = Array.from({ length: 80 }, (_, i) => `f${i}-${tag}@example.com`);
    await createAll(service, org, identifiers.slice(0, 60));
    // Under load: steps are in flight when the server dies.
    await waitFor('deliveries to start', () => hooks.callsTo('POST /erase').length > 5, 30_000);
    process.kill(database.pid()!, 'SIGKILL');
    await waitFor('the outage to show', async () => (await readyz(service)) === 503, 15_000);

    // During the outage: 503 with Retry-After and the documented body, on REST and tRPC.
    const rest = await createRequest(service, org, `outage-${tag}@example.com`);
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await rest.json()).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    const trpc = await fetch(`${service.url}/trpc/workspaces.list`, { headers: { 'x-api-key': org.pat } });
    expect(trpc.status).toBe(503);
    expect(trpc.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(JSON.stringify(await trpc.json())).not.toMatch(/\bat .*\.ts:\d+/);
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });

    await sleep(1_500);
    expect(service.child.exitCode).toBeNull();
    await restartDatabase();

    // Recovers without a restart of the service: ready again, and new work flows.
    await waitFor('/readyz to recover', async () => (await readyz(service)) === 200, 30_000);
    await createAll(service, org, identifiers.slice(60));
    await waitUntilFinished(deps, org.workspace.id, identifiers.length, 90_000);
    expect(service.child.exitCode).toBeNull();
    await expectDeliveredWithOneKeyEach(deps, org.workspace.id, identifiers);
    // Nothing left leased or due.
    const stuck = await deps.prisma.integrationRequest.count({
      where: {
        deletionRequest: { workspaceId: org.workspace.id },
        OR: [{ lockedBy: { not: null } }, { nextAttemptAt: { not: null } }],
      },
    });
    expect(stuck).toBe(0);
    const metrics = await (await fetch(`${service.url}/metrics`, { headers: METRICS_AUTH })).text();
    expect(metrics).toMatch(/^dds_database_up 1$/m);
  });
});

describe('the embedded PostgreSQL of `npm start`', () => {
  let dataDir: string;
  const embeddedEnv = () => ({ DATA_DIR: dataDir, WORKER_CONCURRENCY: '8', LEASE_SECONDS: '5' });

  beforeAll(() => {
    dataDir = path.join(tempDir('dds-embedded-'), '.data');
  });

  const postmaster = () => {
    try {
      const lines = fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
      return { pid: Number(lines[0]), port: Number(lines[3]) };
    } catch {
      return null;
    }
  };

  /** A connection of this test to the service's embedded PostgreSQL (while it runs). */
  async function embeddedDeps(): Promise<{ deps: ServiceDeps; close(): Promise<void> }> {
    const pm = postmaster();
    if (!pm) throw new Error('the embedded PostgreSQL is not running');
    const database = connectDatabase(`postgresql://postgres:postgres@127.0.0.1:${pm.port}/deletion_service`, 3);
    return { deps: depsOn(database), close: () => database.close() };
  }

  it('Ctrl-C (SIGINT to the process group) stops cleanly: in-flight steps finish, nothing repeated, no lease left', async () => {
    webhookDelayMs = 1_500;
    const service = await start(null, { ...embeddedEnv(), SHUTDOWN_GRACE_MS: '5000' }, true);
    const conn = await embeddedDeps();
    const org = await webhookWorkspace(conn.deps);
    const tag = randomBytes(3).toString('hex');
    const identifiers = Array.from({ length: 6 }, (_, i) => `c${i}-${tag}@example.com`);
    const before = hooks.callsTo('POST /erase').length;
    await createAll(service, org, identifiers);
    await waitFor('deliveries to start', () => hooks.callsTo('POST /erase').length >= before + 3, 30_000);
    await conn.close();
    const pm = postmaster()!;
    const signalled = Date.now();
    service.killGroup('SIGINT');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(5_000 + 5_000);
    // The service stopped its PostgreSQL itself, after the workers: no server left, no pid file.
    expect(processAlive(pm.pid)).toBe(false);
    expect(postmaster()).toBeNull();

    webhookDelayMs = 0;
    const again = await start(null, embeddedEnv(), true);
    const after = await embeddedDeps();
    try {
      // Steps that were running were finished within the grace period and recorded: the stopped
      // service holds no lease (lease owners are host:pid:random). The new one may already hold some.
      const leased = await after.deps.prisma.integrationRequest.count({
        where: {
          deletionRequest: { workspaceId: org.workspace.id },
          lockedBy: { startsWith: `${os.hostname()}:${service.child.pid}:` },
        },
      });
      expect(leased).toBe(0);
      await waitUntilFinished(after.deps, org.workspace.id, identifiers.length, 30_000);
      const calls = await expectDeliveredWithOneKeyEach(after.deps, org.workspace.id, identifiers);
      expect(calls).toHaveLength(identifiers.length);
    } finally {
      await after.close();
    }
    again.killGroup('SIGINT');
    expect(await again.exited).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM after its PostgreSQL died and was started again completes the shutdown', async () => {
    const service = await start(null, embeddedEnv(), true);
    const first = postmaster()!;
    process.kill(first.pid, 'SIGKILL');
    await waitFor('/readyz to report the outage', async () => (await readyz(service)) === 503, 15_000);
    // The service starts its PostgreSQL again by itself, on the same port.
    await waitFor('the database to be back', async () => (await readyz(service)) === 200, 60_000);
    const second = postmaster()!;
    expect(second.pid).not.toBe(first.pid);
    expect(second.port).toBe(first.port);
    const signalled = Date.now();
    service.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(15_000);
    expect(processAlive(second.pid)).toBe(false);
  });

  it('starts within a second of a SIGKILL of everything; a SIGKILL of the service alone stops its PostgreSQL too', async () => {
    webhookDelayMs = 0;
    let service = await start(null, embeddedEnv(), true);
    const conn = await embeddedDeps();
    const org = await webhookWorkspace(conn.deps);
    await conn.close();
    const tag = randomBytes(3).toString('hex');

    // Everything killed at once (the service's group and the postmaster, left a zombie until reaped).
    const pm = postmaster()!;
    service.killGroup('SIGKILL');
    process.kill(pm.pid, 'SIGKILL');
    await service.exited;
    service = await start(null, embeddedEnv(), true);
    expect(await readyz(service)).toBe(200);
    await createAll(service, org, [`k1-${tag}@example.com`]);
    const first = await embeddedDeps();
    await waitUntilFinished(first.deps, org.workspace.id, 1, 30_000);
    await first.close();

    // The service alone killed: its PostgreSQL (in its own session) is stopped by its watchdog, not left running.
    const orphan = postmaster()!;
    service.killGroup('SIGKILL');
    await service.exited;
    await waitFor('the orphaned PostgreSQL to stop', () => !processAlive(orphan.pid), 20_000);
    service = await start(null, embeddedEnv(), true);
    const survivor = postmaster()!;
    expect(survivor.pid).not.toBe(orphan.pid);
    await createAll(service, org, [`k2-${tag}@example.com`]);
    const check = await embeddedDeps();
    try {
      await waitUntilFinished(check.deps, org.workspace.id, 2, 30_000);
      await expectDeliveredWithOneKeyEach(check.deps, org.workspace.id, [
        `k1-${tag}@example.com`,
        `k2-${tag}@example.com`,
      ]);
    } finally {
      await check.close();
    }
    service.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(processAlive(survivor.pid)).toBe(false);
  });
});
