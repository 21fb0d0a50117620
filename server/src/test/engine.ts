import { connectDatabase } from '../db/client';
import type { EngineDeps } from '../pipeline/worker/deps';
import { Worker } from '../pipeline/worker/worker';
import { callerFor, seedOrganization, type TestEnv } from './harness';

/** Engine timings shrunk so retries and polls happen within a test. */
export const FAST_ENGINE_CONFIG = {
  RETRY_BASE_MS: '20',
  RETRY_MAX_MS: '200',
  ASYNC_POLL_INTERVAL_MS: '40',
  ASYNC_POLL_MAX_MS: '100',
  MAX_ATTEMPTS: '4',
  WORKER_POLL_MS: '50',
};

export async function startTestWorker(
  env: TestEnv,
  options: { concurrency?: number; leaseMs?: number; pollIntervalMs?: number } = {},
) {
  const database = connectDatabase(env.db.url, 4);
  const deps: EngineDeps = { ...env.deps, prisma: database.prisma, pool: database.pool };
  const worker = new Worker(deps, {
    concurrency: options.concurrency ?? 4,
    pollIntervalMs: options.pollIntervalMs ?? 50,
    leaseMs: options.leaseMs ?? 5_000,
  });
  await worker.start();
  return {
    worker,
    async stop() {
      await worker.stop(2_000);
      await database.close();
    },
  };
}

/** Waits until the deletion request reaches one of `statuses` (default: any final status). */
export async function waitForRequest(
  env: TestEnv,
  deletionRequestId: string,
  statuses = ['SUCCESS', 'FAILED', 'ERROR', 'CANCELED'],
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const request = await env.db.prisma.deletionRequest.findUniqueOrThrow({
      where: { id: deletionRequestId },
      include: { integrationRequests: { orderBy: { createdAt: 'asc' } } },
    });
    if (statuses.includes(request.status)) return request;
    if (Date.now() > deadline)
      throw new Error(
        `request ${deletionRequestId} still ${request.status} (${request.integrationRequests.map((i) => `${i.integrationName}:${i.status}:${i.lastError ?? ''}`).join(', ')})`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function waitForIntegrationRequest(
  env: TestEnv,
  integrationRequestId: string,
  statuses: string[],
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ir = await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: integrationRequestId } });
    if (statuses.includes(ir.status)) return ir;
    if (Date.now() > deadline)
      throw new Error(`integration request ${integrationRequestId} still ${ir.status} (${ir.lastError ?? ''})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A sync webhook destination of `workspaceWithWebhooks`: its base URL (called at `/erase`) and its limits. */
export interface WebhookDestination {
  name: string;
  url: string;
  maxConcurrency?: number;
  maxRequestsPerSecond?: number | null;
  /** The deletion call's JSON body (default `{}`). */
  body?: string;
}

/**
 * A new organization's workspace whose deletion requests go to the given sync webhook
 * destinations, and an importer of `count` subjects (`<prefix>-<n>@example.com`) by CSV.
 */
export async function workspaceWithWebhooks(env: TestEnv, destinations: WebhookDestination[]) {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const integrations = [];
  for (const d of destinations)
    integrations.push(
      await caller.integrations.create({
        workspaceId: org.workspace.id,
        name: d.name,
        type: 'WEBHOOK',
        config: { mode: 'sync', initiate: { method: 'POST', url: `${d.url}/erase`, body: d.body ?? '{}' } },
        maxConcurrency: d.maxConcurrency,
        maxRequestsPerSecond: d.maxRequestsPerSecond,
      }),
    );
  return {
    org,
    caller,
    integrations,
    async importSubjects(count: number, prefix = 'subject') {
      const csv = ['identifier', ...Array.from({ length: count }, (_, i) => `${prefix}-${i}@example.com`)].join('\n');
      const imported = await caller.deletionRequests.importCsv({ csv, workspaceId: org.workspace.id });
      if (imported.created !== count) throw new Error(`imported ${imported.created} of ${count} subjects`);
    },
  };
}
