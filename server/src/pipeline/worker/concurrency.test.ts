import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { ADVISORY_LOCKS } from '../../db/advisory-locks';
import { startTestWorker, workspaceWithWebhooks, type WebhookDestination } from '../../test/engine';
import { createTestEnv, type TestEnv } from '../../test/harness';

/**
 * A destination on loopback that answers every call after `delayMs` (null: never, until it is
 * closed) and counts how many calls it holds at once: what the workers really keep in flight,
 * seen from the other end.
 */
async function startDestination(delayMs: number | null) {
  const stats = { received: 0, inFlight: 0, peak: 0, answered: 0 };
  const server = http.createServer((req, res) => {
    stats.received++;
    stats.inFlight++;
    stats.peak = Math.max(stats.peak, stats.inFlight);
    req.resume();
    if (delayMs === null) return;
    req.on('end', () =>
      setTimeout(() => {
        stats.inFlight--;
        stats.answered++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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

describe('worker concurrency', () => {
  it('accepts WORKER_CONCURRENCY up to 1,024, and CUSTOMER_DB_CONNECTIONS from 1', () => {
    const base = { DATABASE_URL: 'postgresql://x', ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    expect(loadConfig({ ...base, WORKER_CONCURRENCY: '1024' }).WORKER_CONCURRENCY).toBe(1024);
    expect(() => loadConfig({ ...base, WORKER_CONCURRENCY: '1025' })).toThrow(/WORKER_CONCURRENCY/);
    // The connections a worker keeps to a customer database without a `maxConcurrency`: 4 unless set.
    expect(loadConfig(base).CUSTOMER_DB_CONNECTIONS).toBe(4);
    expect(loadConfig({ ...base, CUSTOMER_DB_CONNECTIONS: '64' }).CUSTOMER_DB_CONNECTIONS).toBe(64);
    expect(() => loadConfig({ ...base, CUSTOMER_DB_CONNECTIONS: '0' })).toThrow(/CUSTOMER_DB_CONNECTIONS/);
  });

  it('keeps as many destination calls in flight as its concurrency, with no lower cap', async () => {
    const destination = await startDestination(500);
    const workspace = await workspaceWith([{ name: 'Slow CRM', url: destination.url }]);
    const count = 300;
    await workspace.importSubjects(count);

    // Every step is due before the worker starts, so it can fill all its slots at once.
    const worker = await startTestWorker(env, { concurrency: 256 });
    try {
      await until(() => destination.stats.answered >= count, 20_000);
    } finally {
      await worker.stop();
      await destination.close();
    }
    expect(destination.stats.answered).toBe(count);
    expect(destination.stats.peak).toBeGreaterThanOrEqual(240);
    expect(destination.stats.peak).toBeLessThanOrEqual(256);
  });

  it('holds a destination to its own maxConcurrency across worker processes while the others go on', async () => {
    const hanging = await startDestination(null);
    const fast = await startDestination(0);
    const workspace = await workspaceWith([
      { name: 'Hanging CRM', url: hanging.url, maxConcurrency: 2 },
      { name: 'Fast CRM', url: fast.url },
    ]);
    expect(workspace.integrations.map((i) => i.maxConcurrency)).toEqual([2, null]);
    const count = 40;
    await workspace.importSubjects(count);

    // Two workers on pools of their own, as two processes would be: 16 slots, the hanging destination may hold 2.
    const workers = [await startTestWorker(env, { concurrency: 8 }), await startTestWorker(env, { concurrency: 8 })];
    try {
      await until(() => fast.stats.answered >= count, 15_000);
      // Room for a call beyond the limit to arrive, were one sent.
      await sleep(300);
    } finally {
      await hanging.close();
      await fast.close();
      await Promise.all(workers.map((w) => w.stop()));
    }
    expect(fast.stats.answered).toBe(count);
    expect(hanging.stats.peak).toBe(2);
    expect(hanging.stats.received).toBe(2);
  });

  it('skips a claim while another is under way, and a worker left full wakes the others', async () => {
    // Calls of a second: all three workers' calls overlap even when a loaded machine is slow to pass the wake on.
    const destination = await startDestination(1_000);
    const workspace = await workspaceWith([{ name: 'CRM', url: destination.url }]);
    // Idle workers that would not poll for a minute: only notifications bring them work.
    const workers = [];
    for (let i = 0; i < 3; i++) workers.push(await startTestWorker(env, { concurrency: 4, pollIntervalMs: 60_000 }));
    const count = 24;
    // A claim under way, as another worker's would be: the claims the import's notification brings find it.
    const claiming = await env.db.pool.connect();
    try {
      await sleep(200);
      await claiming.query(`SELECT pg_advisory_lock(${ADVISORY_LOCKS.claims})`);
      await workspace.importSubjects(count);
      await sleep(500);
      expect(destination.stats.received).toBe(0);
      await claiming.query(`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.claims})`);
      // One worker claims a full batch and is left full: the others must hear of the rest from it.
      workers[0]!.worker.kick();
      await until(() => destination.stats.answered >= count, 15_000);
    } finally {
      claiming.release();
      await Promise.all(workers.map((w) => w.stop()));
      await destination.close();
    }
    expect(destination.stats.answered).toBe(count);
    expect(destination.stats.peak).toBe(12);
  });

  it('takes maxConcurrency from 1 to 1,024 and clears it with null', async () => {
    const workspace = await workspaceWith([{ name: 'CRM', url: 'http://127.0.0.1:9', maxConcurrency: 1_024 }]);
    const [integration] = workspace.integrations;
    const update = (maxConcurrency: number | null) =>
      workspace.caller.integrations.update({ integrationId: integration!.id, maxConcurrency });
    await expect(update(0)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(update(1_025)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await update(5)).maxConcurrency).toBe(5);
    expect(
      (await workspace.caller.integrations.update({ integrationId: integration!.id, name: 'CRM 2' })).maxConcurrency,
    ).toBe(5);
    expect((await update(null)).maxConcurrency).toBeNull();
  });
});
