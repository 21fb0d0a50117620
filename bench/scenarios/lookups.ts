import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { BenchCluster } from '../lib/database';
import { postJson } from '../lib/post-json';
import { startService, type Child } from '../lib/processes';
import type { Comparison, LatencyResult } from '../lib/report';
import { addPostgresAccount, addWebhookIntegration, prepareCustomerDatabase, seedOrganization } from '../lib/seed';
import { startWebhookSink } from '../lib/webhook-sink';
import type { BenchSettings } from '../settings';

const CASES = ['none', 'sql', 'webhook'] as const;
type LookupCase = (typeof CASES)[number];

const LABEL: Record<LookupCase, string> = {
  none: 'no lookup',
  sql: 'one SQL lookup (PostgreSQL customer database)',
  webhook: 'one webhook lookup (loopback, answers at once)',
};

/** What "about one round trip" means on loopback here: the lookup's call plus its bookkeeping statements. */
const ADDED_MEDIAN_BOUND_MS = 50;
/** Requests per case before the timed ones (connection pools, JIT, plan caches). */
const WARM_UP = 3;
const CALL_TIMEOUT_MS = 15_000;
const SQL_QUERY = 'SELECT id::text AS user_id FROM users WHERE email = {{email}}';

/** The customer's identity service: answers every webhook lookup at once with a new anonymous id (verifies nothing). */
async function startLookupAnswerer() {
  let answered = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ identifiers: [{ type: 'anonymous_id', value: `anon-${answered}` }] }));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/identities`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function latency(samples: number[]): LatencyResult {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! * 10) / 10;
  return { samples: sorted.length, p50Ms: at(0.5), p90Ms: at(0.9) };
}

/**
 * Time until fan-out: from sending a create (`POST /api/public/deletion-requests`, 201) to the
 * first call reaching the workspace's webhook integration, one request at a time, in three
 * workspaces (no lookup, one SQL lookup, one webhook lookup) taken in turn so that noise hits
 * each alike. One API and one worker process.
 */
export async function lookupsScenario(cluster: BenchCluster, settings: BenchSettings): Promise<Comparison[]> {
  const url = await cluster.createDatabase('bench_lookups');
  const customerUrl = await cluster.createDatabase('bench_lookups_customer', { migrated: false });
  const perCase = WARM_UP + settings.lookupRequests;
  const subjects = Object.fromEntries(
    CASES.map((c) => [c, Array.from({ length: perCase }, (_, i) => `lookup-${c}-${i}@customer.example`)]),
  ) as Record<LookupCase, string[]>;
  await prepareCustomerDatabase(customerUrl, Object.values(subjects).flat(), 100);

  const arrivals = new Map<string, (at: number) => void>();
  const sink = await startWebhookSink((body) => {
    const at = performance.now();
    try {
      const email = (JSON.parse(body) as { email?: string }).email;
      if (email) arrivals.get(email)?.(at);
    } catch {
      // not a call this scenario waits for
    }
  });
  const answerer = await startLookupAnswerer();
  const org = await seedOrganization(url, CASES.length);
  const workspace = Object.fromEntries(CASES.map((c, i) => [c, org.workspaces[i]!])) as Record<
    LookupCase,
    (typeof org.workspaces)[number]
  >;
  await org.caller.identities.createType({ name: 'anonymous_id', description: 'Analytics id before sign-in' });
  for (const c of CASES) await addWebhookIntegration(org, workspace[c].id, `${sink.url}/erase`);
  const account = await addPostgresAccount(org, customerUrl);
  await org.caller.identities.createLookup({
    workspaceId: workspace.sql.id,
    kind: 'sql',
    name: 'App users',
    accountId: account.id,
    query: SQL_QUERY,
    columns: { user_id: 'user_id' },
  });
  await org.caller.identities.createLookup({
    workspaceId: workspace.webhook.id,
    kind: 'webhook',
    name: 'Identity service',
    url: answerer.url,
  });

  const processes: Child[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const api = await startService(url, { ROLE: 'api' });
    processes.push(api);
    processes.push(await startService(url, { ROLE: 'worker' }));
    const timeOne = async (c: LookupCase, identifier: string): Promise<number> => {
      let timer: NodeJS.Timeout | undefined;
      const arrived = new Promise<number>((resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`lookups / ${c}: no call reached the destination in time`)),
          CALL_TIMEOUT_MS,
        );
        arrivals.set(identifier, resolve);
      });
      try {
        const started = performance.now();
        const status = await postJson(
          `${api.url}/api/public/deletion-requests`,
          { 'x-api-key': org.pat },
          { workspaceApiKey: workspace[c].apiKey, identifier },
          agent,
        );
        if (status !== 201) throw new Error(`create answered ${status}`);
        return (await arrived) - started;
      } finally {
        clearTimeout(timer);
        arrivals.delete(identifier);
      }
    };
    const samples: Record<LookupCase, number[]> = { none: [], sql: [], webhook: [] };
    for (let i = 0; i < perCase; i++) {
      for (const c of CASES) {
        const ms = await timeOne(c, subjects[c][i]!);
        if (i >= WARM_UP) samples[c].push(ms);
      }
    }
    // Each lookup found one identifier per request, or the case did not measure what it says.
    const { rows } = await db.query<{ workspaceId: string; found: string }>(
      `SELECT d."workspaceId", count(*) AS found FROM "RequestIdentifier" r JOIN "DeletionRequest" d ON d.id = r."deletionRequestId" WHERE NOT r."primary" GROUP BY d."workspaceId"`,
    );
    const found = (c: LookupCase) => Number(rows.find((r) => r.workspaceId === workspace[c].id)?.found ?? 0);
    const none = latency(samples.none);
    return (['sql', 'webhook'] as const).map((c): Comparison => {
      const service = latency(samples[c]);
      const added = Math.round((service.p50Ms - none.p50Ms) * 10) / 10;
      const addedP90 = Math.round((service.p90Ms - none.p90Ms) * 10) / 10;
      const missing = perCase - found(c);
      return {
        scenario: 'lookups',
        case: `time until fan-out, ${LABEL[c]}${missing ? ` [${missing} requests without a found identifier]` : ''}`,
        service,
        baseline: none,
        ratio: service.p50Ms / none.p50Ms,
        target: `median x no lookup; adds ${added} ms at the median (${addedP90} ms at p90), bound < ${ADDED_MEDIAN_BOUND_MS} ms`,
        met: added < ADDED_MEDIAN_BOUND_MS && missing === 0,
      };
    });
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    agent.destroy();
    await db.end();
    await org.close();
    await answerer.close();
    await sink.close();
  }
}
