import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workspaceWithWebhooks } from '../../test/engine';
import { createTestEnv, type TestEnv } from '../../test/harness';
import { claimDueStepsInTurn, type Claimed } from './claim';
import { finishSteps, type FinishingStep } from './finish';

/**
 * The claim and the step finisher keep their generic plans for as long as a connection lives,
 * and a generic plan is made once, with the tables as they are then. A service started on a new
 * database makes them on nearly empty tables, where reading a whole table costs least; the
 * tables then grow by the thousand (an import) long before autovacuum's first ANALYZE would
 * have the plans made again. Their transactions keep PostgreSQL off sequential scans, so the
 * plans made on empty tables still look rows up by their indexes once the tables have grown.
 */
let env: TestEnv;
/** One connection, as a worker's pool keeps it: the plans it made first are the ones it reuses. */
let pool: pg.Pool;
/** The plans that connection ran (auto_explain, sent to it as notices), while `plans` records, with the planner settings each ran under that differ from the defaults. */
let plans: { query: string; plan: unknown; settings: Record<string, string> }[] | undefined;

beforeAll(async () => {
  env = await createTestEnv();
  pool = new pg.Pool({ connectionString: env.db.url, max: 1 });
  pool.on('connect', (client) => {
    client.on('notice', (notice) => {
      if (!plans || !notice.message?.startsWith('duration:')) return;
      const json = JSON.parse(notice.message.slice(notice.message.indexOf('{'))) as {
        'Query Text': string;
        Plan: unknown;
        Settings?: Record<string, string>;
      };
      plans.push({ query: json['Query Text'], plan: json.Plan, settings: json.Settings ?? {} });
    });
    void client.query(
      `LOAD 'auto_explain'; SET auto_explain.log_level = notice;
       SET auto_explain.log_format = json; SET auto_explain.log_nested_statements = on;
       SET auto_explain.log_settings = on`,
    );
  });
});
afterAll(async () => {
  await pool?.end();
  await env?.close();
});

const workerId = 'worker-cached-plans';

function succeeded(step: Claimed): FinishingStep {
  return {
    id: step.id,
    deletionRequestId: step.deletionRequestId,
    status: 'SUCCESS',
    data: { status: 'SUCCESS', completedAt: new Date(), nextAttemptAt: null, lastError: null },
    entries: [
      {
        organizationId: step.organizationId,
        deletionRequestId: step.deletionRequestId,
        integrationRequestId: step.id,
        action: 'deletion.completed',
        outcome: 'SUCCESS',
        summary: 'Completed with status SUCCESS',
      },
    ],
  };
}

/** Records the plans of what `run` does on the one connection. */
async function recordingPlans<T>(run: () => Promise<T>) {
  plans = [];
  await pool.query(`SET auto_explain.log_min_duration = 0`);
  try {
    return { result: await run(), ran: plans };
  } finally {
    await pool.query(`SET auto_explain.log_min_duration = -1`);
    plans = undefined;
  }
}

const isClaim = (p: { query: string }) => p.query.includes('claimed AS');

/** Claims what is due and finishes it as succeeded, on the one connection; how many steps. */
async function claimAndFinish(): Promise<number> {
  const { steps } = await claimDueStepsInTurn(pool, workerId, 60_000, 50);
  const results = await finishSteps(pool, workerId, steps.map(succeeded));
  expect(results.every((status) => status === 'SUCCESS')).toBe(true);
  return steps.length;
}

/** The tables every scan of a plan read sequentially. */
function sequentialScans(plan: unknown, found = new Set<string>()): Set<string> {
  const node = plan as { 'Node Type': string; 'Relation Name'?: string; Plans?: unknown[] };
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) found.add(node['Relation Name']);
  for (const child of node.Plans ?? []) sequentialScans(child, found);
  return found;
}

it('looks rows up by index after the tables grew under the plans made when they were empty', async () => {
  const workspace = await workspaceWithWebhooks(env, [{ name: 'CRM', url: 'http://127.0.0.1:9' }]);
  await workspace.importSubjects(2, 'first');
  expect(await claimAndFinish()).toBe(2);

  // An import's worth of ended requests, written without an ANALYZE (as autovacuum leaves a
  // new database for its first minute), by another connection.
  const history = new pg.Client({ connectionString: env.db.url });
  await history.connect();
  await history.query(
    `INSERT INTO "DeletionRequest"
     SELECT r.* FROM "DeletionRequest" d, generate_series(1, 20000) g,
            jsonb_populate_record(NULL::"DeletionRequest", to_jsonb(d) || jsonb_build_object('id', 'dr_history_' || g, 'idempotencyKey', NULL)) r
      WHERE d."organizationId" = $1 AND d.id = (SELECT min(id) FROM "DeletionRequest" WHERE "organizationId" = $1)`,
    [workspace.org.organization.id],
  );
  await history.query(
    `INSERT INTO "IntegrationRequest"
     SELECT r.* FROM "IntegrationRequest" ir, generate_series(1, 20000) g,
            jsonb_populate_record(NULL::"IntegrationRequest", to_jsonb(ir) || jsonb_build_object('id', 'ir_history_' || g, 'deletionRequestId', 'dr_history_' || g)) r
      WHERE ir.id = (SELECT min(i.id) FROM "IntegrationRequest" i JOIN "DeletionRequest" r ON r.id = i."deletionRequestId" WHERE r."organizationId" = $1)`,
    [workspace.org.organization.id],
  );
  await history.end();

  await workspace.importSubjects(2, 'later');
  const { result: finished, ran } = await recordingPlans(claimAndFinish);
  expect(finished).toBe(2);

  // The claim and the finisher's statements ran here, with the plans this connection kept, away
  // from sequential scans.
  const claims = ran.filter(isClaim);
  expect(claims).not.toHaveLength(0);
  for (const claim of claims)
    expect(claim.settings).toMatchObject({ plan_cache_mode: 'force_generic_plan', enable_seqscan: 'off' });
  expect(ran.some((p) => p.query.includes('WITH input AS'))).toBe(true);
  const scanned = ran.map((p) => ({ query: p.query.slice(0, 60), tables: [...sequentialScans(p.plan)] }));
  const large = ['DeletionRequest', 'IntegrationRequest', 'AuditLog'];
  expect(scanned.filter((s) => s.tables.some((t) => large.some((name) => t.startsWith(name))))).toEqual([]);
});

it('plans the claim as PostgreSQL does by default while a destination has a limit, and keeps its plans again once none has', async () => {
  // Plans made for each claim's parameters read a limited destination's rows much faster than
  // the kept generic plan, so a claim under limits gives both settings back to their defaults
  // (for its own transaction: the next claim without limits keeps its plan again).
  const workspace = await workspaceWithWebhooks(env, [
    { name: 'Slow CRM', url: 'http://127.0.0.1:9', maxConcurrency: 2 },
  ]);
  await workspace.importSubjects(3, 'limited');
  const limited = await recordingPlans(claimAndFinish);
  expect(limited.result).toBe(2);
  const underLimits = limited.ran.filter(isClaim);
  expect(underLimits).not.toHaveLength(0);
  for (const claim of underLimits) {
    expect(claim.settings).not.toHaveProperty('enable_seqscan');
    expect(claim.settings).not.toHaveProperty('plan_cache_mode');
  }

  await env.db.prisma.integration.update({
    where: { id: workspace.integrations[0]!.id },
    data: { maxConcurrency: null },
  });
  const unlimited = await recordingPlans(claimAndFinish);
  expect(unlimited.result).toBe(1);
  const withoutLimits = unlimited.ran.filter(isClaim);
  expect(withoutLimits).not.toHaveLength(0);
  for (const claim of withoutLimits)
    expect(claim.settings).toMatchObject({ plan_cache_mode: 'force_generic_plan', enable_seqscan: 'off' });
  // Outside the claim's transaction the connection has PostgreSQL's defaults.
  const { rows } = await pool.query<{ seqscan: string; mode: string }>(
    `SELECT current_setting('enable_seqscan') AS seqscan, current_setting('plan_cache_mode') AS mode`,
  );
  expect(rows[0]).toEqual({ seqscan: 'on', mode: 'auto' });
});
