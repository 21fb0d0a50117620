import pg from 'pg';
import type { BenchCluster } from '../lib/database';
import { startFakeDestination, type FakeDestination } from '../lib/fake-destination';
import { startService, type Child } from '../lib/processes';
import type { Comparison, TimedResult } from '../lib/report';
import { seedOrganization, type SeededOrganization } from '../lib/seed';
import type { BenchSettings } from '../settings';

/** Calls at once each latency destination may hold (their four together stay below the worker's 256). */
const DESTINATION_CONCURRENCY = 50;
/** The rate-limited destination's own limit, and the rate its integration is configured with. */
const LIMITED_PER_SECOND = 20;
/** Rows per CSV upload (the import's own limit is 1,000). */
const CSV_ROWS = 1_000;

interface DestinationPlan {
  name: string;
  latencyMs: number;
  /** The fake's rate limit and the integration's maxRequestsPerSecond. */
  perSecond?: number;
}

const FIFTY_MS: DestinationPlan = { name: '50 ms CRM', latencyMs: 50 };
const PLANS: DestinationPlan[] = [
  FIFTY_MS,
  { name: '200 ms CRM', latencyMs: 200 },
  { name: '500 ms CRM', latencyMs: 500 },
  { name: '2 s CRM', latencyMs: 2_000 },
  { name: '20 req/s CRM', latencyMs: 50, perSecond: LIMITED_PER_SECOND },
];

/** The shortest time a destination can take its `count` calls in: its rate, or its calls at once times its latency. */
function boundSeconds(plan: DestinationPlan, count: number): number {
  if (plan.perSecond) return count / plan.perSecond;
  return (count * plan.latencyMs) / 1000 / DESTINATION_CONCURRENCY;
}

interface Drained {
  /** From the first destination call until the last integration request of all destinations ended. */
  seconds: number;
  /** How long the CSV uploads took (before the worker started). */
  importSeconds: number;
  /** The same, per destination name. */
  byDestination: Map<string, number>;
  notSuccess: number;
  peakRssMb: number;
  databaseBytes: number;
  /** Request tables and audit log at rest, per integration request. */
  bytesPerIntegrationRequest: number;
  fakes: Map<string, FakeDestination>;
}

async function importCsv(api: Child, org: SeededOrganization, workspaceId: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += CSV_ROWS) {
    const rows = Array.from(
      { length: Math.min(CSV_ROWS, count - first) },
      (_, i) => `backlog-${first + i}@customer.example`,
    );
    const response = await fetch(`${api.url}/api/public/deletion-requests/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
      body: JSON.stringify({ workspaceId, csv: ['identifier', ...rows].join('\n') }),
    });
    if (response.status !== 200) throw new Error(`CSV import answered ${response.status}: ${await response.text()}`);
  }
}

/** `plans` as webhook integrations of one workspace, `count` requests imported by CSV, drained by one worker process. */
async function drain(
  cluster: BenchCluster,
  settings: BenchSettings,
  database: string,
  plans: DestinationPlan[],
): Promise<Drained> {
  const count = settings.backlogRequests;
  const url = await cluster.createDatabase(database);
  const org = await seedOrganization(url, 1);
  const workspace = org.workspaces[0]!;
  const fakes = new Map<string, FakeDestination>();
  const names = new Map<string, string>();
  const processes: Child[] = [];
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    for (const plan of plans) {
      const fake = await startFakeDestination(plan.latencyMs, plan.perSecond);
      fakes.set(plan.name, fake);
      const integration = await org.caller.integrations.create({
        workspaceId: workspace.id,
        name: plan.name,
        type: 'WEBHOOK',
        config: {
          mode: 'sync',
          initiate: { method: 'POST', url: `${fake.url}/erase`, body: '{"email":"{{identifier}}"}' },
        },
        maxConcurrency: plan.perSecond ? null : DESTINATION_CONCURRENCY,
        maxRequestsPerSecond: plan.perSecond ?? null,
      });
      names.set(integration.id, plan.name);
    }
    // The backlog first, then the worker that drains it; the drain is timed from its first call.
    processes.push(await startService(url, { ROLE: 'api' }));
    const importStartedMs = Date.now();
    await importCsv(processes[0]!, org, workspace.id, count);
    const importSeconds = (Date.now() - importStartedMs) / 1000;
    processes.push(
      await startService(url, { ROLE: 'worker', WORKER_CONCURRENCY: String(settings.backlogConcurrency) }),
    );
    const bootedMs = Date.now();
    const expected = count * plans.length;
    const deadlineMs = bootedMs + 1000 * (60 + 3 * Math.max(...plans.map((p) => boundSeconds(p, count))));
    let rows: { integrationId: string; ended: string; lastMs: string | null; notSuccess: string }[] = [];
    for (;;) {
      // The fakes count the calls they answered in this process: the tables are asked only once
      // every step has had its answer (a query of every integration request each time would load
      // the machine the drain is timed on; the times come from "completedAt" either way).
      const answered = [...fakes.values()].reduce((sum, f) => sum + f.calls - f.refused, 0);
      if (answered < expected && Date.now() <= deadlineMs) {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      ({ rows } = await db.query(
        `SELECT "integrationId", count(*) FILTER (WHERE status IN ('SUCCESS', 'FAILED', 'ERROR', 'CANCELED')) AS ended,
                count(*) FILTER (WHERE status IN ('FAILED', 'ERROR', 'CANCELED')) AS "notSuccess",
                extract(epoch FROM max("completedAt")) * 1000 AS "lastMs"
           FROM "IntegrationRequest" GROUP BY "integrationId"`,
      ));
      const ended = rows.reduce((sum, r) => sum + Number(r.ended), 0);
      if (ended >= expected) break;
      if (Date.now() > deadlineMs)
        throw new Error(`backlog: only ${ended}/${expected} integration requests ended in time`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const startedMs = Math.min(...[...fakes.values()].map((f) => f.firstCallAt ?? bootedMs));
    const byDestination = new Map(
      rows.map((r) => [names.get(r.integrationId)!, (Number(r.lastMs) - startedMs) / 1000]),
    );
    const size = await db.query<{ database: string; requests: string; integrationRequests: string }>(
      `SELECT pg_database_size(current_database()) AS database,
              pg_total_relation_size('"DeletionRequest"') + pg_total_relation_size('"IntegrationRequest"')
                + (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('"AuditLog"')) AS requests,
              (SELECT count(*) FROM "IntegrationRequest") AS "integrationRequests"`,
    );
    return {
      seconds: Math.max(...byDestination.values()),
      importSeconds,
      byDestination,
      notSuccess: rows.reduce((sum, r) => sum + Number(r.notSuccess), 0),
      peakRssMb: processes.reduce((sum, p) => sum + p.peakRssMb(), 0),
      databaseBytes: Number(size.rows[0]!.database),
      bytesPerIntegrationRequest: Number(size.rows[0]!.requests) / Number(size.rows[0]!.integrationRequests),
      fakes,
    };
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await db.end();
    await org.close();
    await Promise.all([...fakes.values()].map((f) => f.close()));
  }
}

const timed = (seconds: number, items: number, peakRssMb = 0): TimedResult => ({
  seconds,
  items,
  itemsPerSecond: items / seconds,
  peakRssMb,
});

/**
 * A backlog of `backlogRequests` deletion requests imported by CSV, drained by one worker process
 * (WORKER_CONCURRENCY 256) into five destinations on loopback: four answering in 50 ms, 200 ms,
 * 500 ms and 2 s (50 calls at once each), one limited to 20 calls a second (429 with Retry-After
 * beyond it; its integration has maxRequestsPerSecond 20). Compared with the bound (the slowest
 * destination's calls divided by its rate or calls at once), with the 429s, and with the 50 ms
 * destination draining the same requests alone.
 */
export async function backlogScenario(
  cluster: BenchCluster,
  settings: BenchSettings,
  notes: string[],
): Promise<Comparison[]> {
  const count = settings.backlogRequests;
  const alone = await drain(cluster, settings, 'bench_backlog_alone', [FIFTY_MS]);
  const all = await drain(cluster, settings, 'bench_backlog', PLANS);
  const bound = Math.max(...PLANS.map((plan) => boundSeconds(plan, count)));
  const limited = all.fakes.get('20 req/s CRM')!;
  const refusedShare = limited.calls === 0 ? 0 : limited.refused / limited.calls;
  const fiftyAlone = alone.byDestination.get(FIFTY_MS.name)!;
  const fiftyMixed = all.byDestination.get(FIFTY_MS.name)!;
  const problems = all.notSuccess ? ` [${all.notSuccess} not SUCCESS]` : '';
  notes.push(
    `backlog: ${count} requests x ${PLANS.length} destinations drained in ${all.seconds.toFixed(1)} s (bound ${bound.toFixed(1)} s; ` +
      `timed from the first destination call; the CSV import before it took ${all.importSeconds.toFixed(1)} s); ` +
      `per destination ${[...all.byDestination].map(([name, s]) => `${name} ${s.toFixed(1)} s`).join(', ')}; ` +
      `peak RSS ${all.peakRssMb} MB (API + worker); database ${(all.databaseBytes / 2 ** 20).toFixed(0)} MB, ` +
      `${Math.round(all.bytesPerIntegrationRequest)} bytes per integration request at rest (request tables + audit log); ` +
      `20 req/s destination: ${limited.calls} calls, ${limited.refused} answered 429`,
  );
  return [
    {
      scenario: 'backlog',
      case: `${count} CSV-imported requests, 5 destinations, drain vs bound${problems}`,
      service: timed(all.seconds, count * PLANS.length, all.peakRssMb),
      baseline: timed(bound, count * PLANS.length),
      ratio: bound / all.seconds,
      target: 'bound / drain >= 0.80',
      met: bound / all.seconds >= 0.8 && all.notSuccess === 0,
    },
    {
      scenario: 'backlog',
      case: `429s at the 20 req/s destination (${limited.refused} of ${limited.calls} calls)`,
      service: timed(all.byDestination.get('20 req/s CRM')!, limited.calls),
      baseline: timed(boundSeconds(PLANS[4]!, count), count),
      ratio: refusedShare,
      target: 'share of calls answered 429 < 0.01',
      met: refusedShare < 0.01,
    },
    {
      scenario: 'backlog',
      case: '50 ms destination beside the others vs alone',
      service: timed(fiftyMixed, count, all.peakRssMb),
      baseline: timed(fiftyAlone, count, alone.peakRssMb),
      ratio: fiftyAlone / fiftyMixed,
      target: 'alone / beside the others >= 0.90',
      met: fiftyAlone / fiftyMixed >= 0.9,
    },
  ];
}
