import http from 'node:http';
import pg from 'pg';
import { applyRetention } from '../../server/src/pipeline/commands/apply-retention';
import { sealAuditChain } from '../../server/src/services/audit/audit-chain';
import type { BenchCluster } from '../lib/database';
import { createRequests } from '../lib/post-json';
import { startService, type Child } from '../lib/processes';
import type { Comparison, StorageResult } from '../lib/report';
import { addWebhookIntegration, seedOrganization } from '../lib/seed';
import { startWebhookSink, VENDOR_LIKE_ANSWER } from '../lib/webhook-sink';
import type { BenchSettings } from '../settings';

const WEBHOOKS = 3;
const CREATE_CONCURRENCY = 8;
const DEADLINE_MS = 240_000;
const TARGET_BYTES = 2_048;

/**
 * Every table's heap, TOAST and indexes, compacted first so that only live rows count; a
 * partitioned table's (the audit log's months) summed under its own name.
 */
async function tableBytes(db: pg.Client): Promise<Map<string, number>> {
  await db.query('VACUUM FULL');
  const { rows } = await db.query<{ name: string; bytes: string }>(
    `SELECT COALESCE(p.relname, c.relname) AS name, sum(pg_total_relation_size(c.oid)) AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
       LEFT JOIN pg_class p ON p.oid = i.inhparent AND p.relkind = 'p'
      WHERE n.nspname = 'public' AND c.relkind = 'r'
      GROUP BY 1`,
  );
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}

/** The largest columns of the tables that grow per request, in bytes per integration request (values only). */
async function columnBytes(db: pg.Client, count: number): Promise<Record<string, number>> {
  const { rows: columns } = await db.query<{ table: string; column: string }>(
    `SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name IN ('AuditLog', 'IntegrationRequest', 'DeletionRequest', 'RequestIdentifier')`,
  );
  const sizes: [string, number][] = [];
  for (const { table, column } of columns) {
    const { rows } = await db.query<{ bytes: string | null }>(
      `SELECT sum(pg_column_size("${column}")) AS bytes FROM "${table}"`,
    );
    sizes.push([`${table}.${column}`, Math.round(Number(rows[0]!.bytes ?? 0) / count)]);
  }
  // What the audit details hold, by key (uncompressed; the column above is as stored).
  const { rows: keys } = await db.query<{ key: string; bytes: string }>(
    `SELECT d.key, sum(pg_column_size(d.value)) AS bytes
       FROM "AuditLog" a, jsonb_each(CASE WHEN jsonb_typeof(a.details) = 'object' THEN a.details END) d GROUP BY d.key`,
  );
  const detailKeys = keys
    .map((k) => [`AuditLog.details.${k.key} (uncompressed)`, Math.round(Number(k.bytes) / count)] as [string, number])
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4);
  return Object.fromEntries([...sizes.sort((a, b) => b[1] - a[1]).slice(0, 8), ...detailKeys]);
}

/** Bytes per integration request: what each table grew by since `empty`, largest first. */
function perIntegrationRequest(empty: Map<string, number>, now: Map<string, number>, count: number): StorageResult {
  const tables = [...now]
    .map(([name, bytes]) => [name, Math.round((bytes - (empty.get(name) ?? 0)) / count)] as const)
    .filter(([, bytes]) => bytes !== 0)
    .sort((a, b) => b[1] - a[1]);
  return {
    integrationRequests: count,
    bytesPerIntegrationRequest: tables.reduce((sum, [, bytes]) => sum + bytes, 0),
    tables: Object.fromEntries(tables),
  };
}

/**
 * Bytes at rest per integration request: `storageRequests` deletion requests into a workspace
 * with three sync webhooks answering like a vendor's API (a dozen headers, a JSON body of a few
 * KB), run to SUCCESS by one worker; the audit chain sealed and every table vacuumed, then measured
 * before and after the retention policy (HASH, 0 days) removes the audit payloads.
 */
export async function storageScenario(cluster: BenchCluster, settings: BenchSettings): Promise<Comparison[]> {
  const url = await cluster.createDatabase('bench_storage');
  const sink = await startWebhookSink(undefined, VENDOR_LIKE_ANSWER);
  const org = await seedOrganization(url, 1);
  const workspace = org.workspaces[0]!;
  for (let i = 0; i < WEBHOOKS; i++)
    await addWebhookIntegration(org, workspace.id, `${sink.url}/erase/${i}`, `CRM ${i}`);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const processes: Child[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: CREATE_CONCURRENCY });
  try {
    const empty = await tableBytes(db);
    const api = await startService(url, { ROLE: 'api' });
    processes.push(api);
    processes.push(await startService(url, { ROLE: 'worker' }));
    const started = performance.now();
    await createRequests(
      { apiUrl: api.url, pat: org.pat, workspaceApiKey: workspace.apiKey, agent, concurrency: CREATE_CONCURRENCY },
      Array.from({ length: settings.storageRequests }, (_, i) => `stored-${i}@customer.example`),
    );
    for (;;) {
      const { rows } = await db.query<{ open: string }>(
        `SELECT count(*) AS open FROM "DeletionRequest" WHERE "completedAt" IS NULL`,
      );
      if (Number(rows[0]!.open) === 0) break;
      if (performance.now() - started > DEADLINE_MS) throw new Error('storage: requests not finished in time');
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    // At rest every entry is sealed (workers seal every AUDIT_SEAL_INTERVAL_MS, 30 s): seal what the
    // run left, so the figure has the chain's fields and does not depend on how long the run took.
    await sealAuditChain(org.deps.prisma);
    const { rows } = await db.query<{ n: string; failed: string }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE status <> 'SUCCESS') AS failed FROM "IntegrationRequest"`,
    );
    const count = Number(rows[0]!.n);
    const stored = perIntegrationRequest(empty, await tableBytes(db), count);
    stored.columns = await columnBytes(db, count);
    await db.query(`UPDATE "Organization" SET "retentionAction" = 'HASH', "retentionDays" = 0`);
    await applyRetention(org.deps.prisma, new Date(Date.now() + 1_000));
    const retained = perIntegrationRequest(empty, await tableBytes(db), count);
    retained.columns = await columnBytes(db, count);
    const ok = Number(rows[0]!.failed) === 0 && count === settings.storageRequests * WEBHOOKS;
    return [
      {
        scenario: 'storage',
        case: 'bytes at rest per integration request',
        service: stored,
        ratio: stored.bytesPerIntegrationRequest / TARGET_BYTES,
        target: `<= ${TARGET_BYTES} bytes before retention`,
        met: ok && stored.bytesPerIntegrationRequest <= TARGET_BYTES,
      },
      {
        scenario: 'storage',
        case: 'the same after retention (HASH, 0 days)',
        service: retained,
        ratio: retained.bytesPerIntegrationRequest / TARGET_BYTES,
        target: 'reported',
        met: ok,
      },
    ];
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    agent.destroy();
    await db.end();
    await org.close();
    await sink.close();
  }
}
