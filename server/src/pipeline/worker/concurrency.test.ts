import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { startTestWorker } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';

/**
 * A destination on loopback that answers every call after `delayMs` and counts how many calls
 * it holds at once: what the worker really keeps in flight, seen from the other end.
 */
async function startSlowDestination(delayMs: number) {
  const stats = { inFlight: 0, peak: 0, answered: 0 };
  const server = http.createServer((req, res) => {
    stats.inFlight++;
    stats.peak = Math.max(stats.peak, stats.inFlight);
    req.resume();
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

let env: TestEnv;
let destination: Awaited<ReturnType<typeof startSlowDestination>>;

beforeAll(async () => {
  env = await createTestEnv({ WORKER_POLL_MS: '50' });
  destination = await startSlowDestination(500);
});
afterAll(async () => {
  await destination?.close();
  await env?.close();
});

describe('worker concurrency', () => {
  it('accepts WORKER_CONCURRENCY up to 1,024', () => {
    const base = { DATABASE_URL: 'postgresql://x', ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    expect(loadConfig({ ...base, WORKER_CONCURRENCY: '1024' }).WORKER_CONCURRENCY).toBe(1024);
    expect(() => loadConfig({ ...base, WORKER_CONCURRENCY: '1025' })).toThrow(/WORKER_CONCURRENCY/);
  });

  it('keeps as many destination calls in flight as its concurrency, with no lower cap', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Slow CRM',
      type: 'WEBHOOK',
      config: { mode: 'sync', initiate: { method: 'POST', url: `${destination.url}/erase`, body: '{}' } },
    });
    const count = 300;
    const csv = ['identifier', ...Array.from({ length: count }, (_, i) => `subject-${i}@example.com`)].join('\n');
    const imported = await caller.deletionRequests.importCsv({ csv, workspaceId: org.workspace.id });
    expect(imported.created).toBe(count);

    // Every step is due before the worker starts, so it can fill all its slots at once.
    const worker = await startTestWorker(env, { concurrency: 256 });
    try {
      const deadline = Date.now() + 20_000;
      while (destination.stats.answered < count && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      await worker.stop();
    }
    expect(destination.stats.answered).toBe(count);
    expect(destination.stats.peak).toBeGreaterThanOrEqual(240);
    expect(destination.stats.peak).toBeLessThanOrEqual(256);
  });
});
