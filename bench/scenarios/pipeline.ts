import http from 'node:http';
import pg from 'pg';
import type { BenchCluster } from '../lib/database';
import { createRequests, postJson } from '../lib/post-json';
import { startService, type Child } from '../lib/processes';
import type { Comparison, TimedResult } from '../lib/report';
import {
  addPostgresIntegration,
  addWebhookIntegration,
  prepareCustomerDatabase,
  remainingSubjects,
  seedOrganization,
  type SeededWorkspace,
} from '../lib/seed';
import { startWebhookSink } from '../lib/webhook-sink';
import type { BenchSettings } from '../settings';

const CREATE_CONCURRENCY = 16;
const DEADLINE_MS = 240_000;

const subjectsFor = (n: number, prefix = 'subject') =>
  Array.from({ length: n }, (_, i) => `${prefix}-${i}@customer.example`);

/** Requests of one round of the compile warm-up, and the most rounds it runs. */
const COMPILE_ROUND = 2_000;
const COMPILE_ROUNDS = 12;

/** The service: `workers` worker processes and one API process, from the first create to the last SUCCESS. */
async function runService(
  cluster: BenchCluster,
  settings: BenchSettings,
  workers: number,
): Promise<
  TimedResult & { createSeconds: number; failed: number; duplicateCalls: number; remaining: number; warmedUp: number }
> {
  const url = await cluster.createDatabase(`bench_pipeline_${workers}`);
  const customerUrl = await cluster.createDatabase(`bench_pipeline_customer_${workers}`, { migrated: false });
  const warmUpSubjects = subjectsFor(settings.pipelineWarmUp, 'warm-up');
  const subjects = subjectsFor(settings.pipelineRequests);
  await prepareCustomerDatabase(customerUrl, [...warmUpSubjects, ...subjects], settings.pipelineRequests * 4);
  const sink = await startWebhookSink();
  const org = await seedOrganization(url, 2);
  const [workspace, compileWorkspace] = org.workspaces as [SeededWorkspace, SeededWorkspace];
  await addWebhookIntegration(org, workspace.id, `${sink.url}/erase`);
  await addPostgresIntegration(org, workspace.id, customerUrl);
  // The compile warm-up's own customer database, so that the measured one holds the same rows as
  // the loop's; its orders are indexed by user, as its only use is to run the service's code.
  const compileSubjects = subjectsFor(settings.pipelineWarmUp ? COMPILE_ROUND * COMPILE_ROUNDS : 0, 'compile');
  if (compileSubjects.length > 0) {
    const compileUrl = await cluster.createDatabase(`bench_pipeline_compile_${workers}`, { migrated: false });
    await prepareCustomerDatabase(compileUrl, compileSubjects, 0, { indexOrdersByUser: true });
    await addWebhookIntegration(org, compileWorkspace.id, `${sink.url}/erase`);
    await addPostgresIntegration(org, compileWorkspace.id, compileUrl);
  }
  const processes: Child[] = [];
  /** CPU time the service's processes have used so far, in ms. */
  const serviceCpuMs = () => processes.reduce((sum, p) => sum + p.cpuMs(), 0);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CREATE_CONCURRENCY });
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const api = await startService(url, { ROLE: 'api' });
    processes.push(api);
    for (let i = 0; i < workers; i++) processes.push(await startService(url, { ROLE: 'worker' }));
    /**
     * Creates these requests and waits until `total` requests of the workspace have ended (the
     * warm-up's with the measured ones); the time of the creates.
     */
    const drain = async (
      batch: string[],
      total: number,
      started: number,
      into = workspace,
    ): Promise<{ createSeconds: number; failed: number }> => {
      await createRequests(
        { apiUrl: api.url, pat: org.pat, workspaceApiKey: into.apiKey, agent, concurrency: CREATE_CONCURRENCY },
        batch,
      );
      const createSeconds = (performance.now() - started) / 1000;
      for (;;) {
        // The poll every 20 ms asks only whether a request is still open, through the index on
        // (organization, status): counting the workspace's requests each time took about 2 ms of
        // the database's time, about a twentieth of the two cores the service runs on.
        const { rows: open } = await db.query<{ open: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM "DeletionRequest" WHERE "organizationId" = $1 AND status IN ('STAGING', 'PENDING', 'PROCESSING')) AS open`,
          [org.organizationId],
        );
        if (!open[0]!.open) {
          const { rows } = await db.query<{ success: string; failed: string }>(
            `SELECT count(*) FILTER (WHERE status = 'SUCCESS') AS success, count(*) FILTER (WHERE status IN ('FAILED', 'ERROR', 'CANCELED')) AS failed FROM "DeletionRequest" WHERE "workspaceId" = $1`,
            [into.id],
          );
          const done = { success: Number(rows[0]!.success), failed: Number(rows[0]!.failed) };
          if (done.success + done.failed >= total) return { createSeconds, failed: done.failed };
        }
        if (performance.now() - started > DEADLINE_MS)
          throw new Error(`pipeline with ${workers} worker(s): requests still open after ${DEADLINE_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // Measured at steady state, as a service runs: the processes' first requests (their code
    // still being compiled, each process its own) go through first, unmeasured. V8 compiles a
    // process's functions as they get hot, and four processes sharing the requests take four
    // times as many to get there: after 4,000 requests in all, a fifth of four workers' CPU still
    // went to the optimizing compiler, and the code it had not reached yet ran in the interpreter
    // (7 % for one worker). So the compile warm-up runs in the second workspace in rounds, until
    // each worker process has stepped `pipelineWarmUp` requests and the service's CPU per request
    // stopped falling (within 5 % of the round before); then the warm-up the loop makes as well.
    let compiled = 0;
    let previous = Infinity;
    for (let round = 0; round < COMPILE_ROUNDS && compileSubjects.length > 0; round++) {
      const cpuBefore = serviceCpuMs();
      const batch = compileSubjects.slice(compiled, compiled + COMPILE_ROUND);
      await drain(batch, compiled + batch.length, performance.now(), compileWorkspace);
      compiled += batch.length;
      const cpuMsPerRequest = (serviceCpuMs() - cpuBefore) / batch.length;
      if (compiled + warmUpSubjects.length >= settings.pipelineWarmUp * workers && cpuMsPerRequest > previous * 0.95)
        break;
      previous = cpuMsPerRequest;
    }
    if (warmUpSubjects.length) await drain(warmUpSubjects, warmUpSubjects.length, performance.now());
    const cpuBefore = serviceCpuMs();
    const started = performance.now();
    const { createSeconds, failed } = await drain(subjects, warmUpSubjects.length + subjects.length, started);
    const cpuMs = serviceCpuMs() - cpuBefore;
    const seconds = (performance.now() - started) / 1000;
    const peakRssMb = processes.reduce((sum, p) => sum + p.peakRssMb(), 0);
    const duplicateCalls = [...sink.callsByKey.values()].filter((n) => n > 1).length;
    return {
      seconds,
      createSeconds,
      items: subjects.length,
      itemsPerSecond: subjects.length / seconds,
      peakRssMb,
      cpuMsPerRequest: Math.round((cpuMs / subjects.length) * 100) / 100,
      failed,
      duplicateCalls,
      remaining: await remainingSubjects(customerUrl, subjects),
      warmedUp: compiled + warmUpSubjects.length,
    };
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    agent.destroy();
    await db.end();
    await org.close();
    await sink.close();
  }
}

/** The baseline: a plain loop making the same webhook call and DELETE statements directly; it must leave no subject row behind. */
async function runLoop(cluster: BenchCluster, settings: BenchSettings): Promise<TimedResult> {
  const customerUrl = await cluster.createDatabase('bench_pipeline_customer_loop', { migrated: false });
  const warmUpSubjects = subjectsFor(settings.pipelineWarmUp, 'warm-up');
  const subjects = subjectsFor(settings.pipelineRequests);
  await prepareCustomerDatabase(customerUrl, [...warmUpSubjects, ...subjects], settings.pipelineRequests * 4);
  const sink = await startWebhookSink();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const customer = new pg.Client({ connectionString: customerUrl });
  await customer.connect();
  let n = 0;
  const erase = async (identifier: string) => {
    const status = await postJson(
      `${sink.url}/erase`,
      { authorization: 'Bearer bench-webhook-token', 'idempotency-key': `loop-${n++}` },
      { email: identifier },
      agent,
    );
    if (status !== 200) throw new Error(`webhook answered ${status}`);
    await customer.query('BEGIN');
    await customer.query(`DELETE FROM "public"."orders" WHERE "customer_email" = $1`, [identifier]);
    await customer.query(`DELETE FROM "public"."events" WHERE "distinct_id" = $1`, [identifier]);
    await customer.query(`DELETE FROM "public"."users" WHERE "email" = $1`, [identifier]);
    await customer.query('COMMIT');
  };
  try {
    // The same warm-up as the service's, so that both erase the same rows from the same tables.
    for (const identifier of warmUpSubjects) await erase(identifier);
    const started = performance.now();
    for (const identifier of subjects) await erase(identifier);
    const seconds = (performance.now() - started) / 1000;
    if ((await remainingSubjects(customerUrl, subjects)) !== 0)
      throw new Error('the baseline loop left subject rows behind');
    return { seconds, items: subjects.length, itemsPerSecond: subjects.length / seconds, peakRssMb: 0 };
  } finally {
    agent.destroy();
    await customer.end();
    await sink.close();
  }
}

/** The loop's two runs as one baseline: all their requests over all their time. */
function bothLoops(before: TimedResult, after: TimedResult): TimedResult {
  const seconds = before.seconds + after.seconds;
  const items = before.items + after.items;
  return { seconds, items, itemsPerSecond: items / seconds, peakRssMb: 0 };
}

/**
 * `pipelineRequests` deletion requests through a workspace with a zero-latency webhook and
 * a PostgreSQL integration, with 1 and with 4 worker processes, against the plain loop. The loop
 * runs before the service and again after it (its pace swung by a quarter between runs minutes
 * apart on the 2-core machine): the baseline is both runs together, and each run's pace is reported.
 */
export async function pipelineScenario(cluster: BenchCluster, settings: BenchSettings): Promise<Comparison[]> {
  const before = await runLoop(cluster, settings);
  const services: { workers: number; service: Awaited<ReturnType<typeof runService>> }[] = [];
  for (const workers of settings.pipelineWorkers)
    services.push({ workers, service: await runService(cluster, settings, workers) });
  const after = await runLoop(cluster, settings);
  const loop = bothLoops(before, after);
  const loopPaces = `loop ${Math.round(before.itemsPerSecond)} and ${Math.round(after.itemsPerSecond)}/s before and after`;
  const comparisons: Comparison[] = [];
  /** The ratio with one worker process, when this run measured it: more processes must not do less. */
  let oneWorker: number | undefined;
  for (const { workers, service } of services) {
    const ratio = service.itemsPerSecond / loop.itemsPerSecond;
    if (workers === 1) oneWorker ??= ratio;
    const problems = [
      service.failed ? `${service.failed} not SUCCESS` : '',
      service.remaining ? `${service.remaining} subject rows left` : '',
    ].filter(Boolean);
    // One process: half the loop's pace. More processes on the same cores: more than that
    // (0.60), and never less than one process alone.
    const least = workers === 1 ? 0.5 : 0.6;
    const notBelowOne = workers === 1 || oneWorker === undefined || ratio >= oneWorker;
    comparisons.push({
      scenario: 'pipeline',
      case: `${settings.pipelineRequests} requests (webhook + PostgreSQL), ${workers} worker process(es)${problems.length ? ` [${problems.join(', ')}]` : ''}`,
      service,
      baseline: loop,
      ratio,
      target:
        `throughput >= ${least.toFixed(2)} x plain loop` +
        (workers > 1 && oneWorker !== undefined ? ` and >= 1 process's ${oneWorker.toFixed(2)}` : '') +
        `; ${service.duplicateCalls} repeated webhook calls; ${service.warmedUp} requests of warm-up; ${loopPaces}`,
      met: ratio >= least && notBelowOne && problems.length === 0,
    });
  }
  return comparisons;
}
