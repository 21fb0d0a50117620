import { bulkLoadRequests } from '../lib/bulk-load';
import type { BenchCluster } from '../lib/database';
import { startService, type Child } from '../lib/processes';
import type { Comparison, TimedResult } from '../lib/report';
import { seedOrganization } from '../lib/seed';
import type { BenchSettings } from '../settings';

/** Growth of the service's peak RSS that still counts as flat memory while it streams every row. */
const FLAT_RSS_GROWTH_MB = 64;

async function timed(service: Child, run: () => Promise<number>): Promise<TimedResult & { rssGrowthMb: number }> {
  const before = service.peakRssMb();
  const started = performance.now();
  const items = await run();
  const seconds = (performance.now() - started) / 1000;
  const peak = service.peakRssMb();
  return { seconds, items, itemsPerSecond: items / seconds, peakRssMb: peak, rssGrowthMb: peak - before };
}

/** Reads the CSV download as it streams, counting lines; nothing is kept. */
async function exportRows(service: Child, pat: string): Promise<number> {
  const res = await fetch(`${service.url}/api/downloads/requests.csv`, { headers: { 'x-api-key': pat } });
  if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
  let lines = 0;
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    lines += decoder.decode(value, { stream: true }).split('\r\n').length - 1;
  }
  return lines - 1;
}

/** The same rows through the public list, 1,000 per page, following its `Link: rel="next"`. */
async function listRows(service: Child, pat: string): Promise<number> {
  let next: string | null =
    `${service.url}/api/public/deletion-requests/organization?limit=1000&fetchIntegrationRequests=true`;
  let rows = 0;
  while (next) {
    const res: Response = await fetch(next, { headers: { 'x-api-key': pat } });
    if (!res.ok) throw new Error(`list answered ${res.status}`);
    rows += ((await res.json()) as unknown[]).length;
    next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
  }
  return rows;
}

/**
 * CSV export of the whole organization (`listRequests` requests, with their integration
 * requests) against reading the same rows through the paginated list endpoint, in the same
 * process on the same database: rows/s, and how much the service's peak RSS grows.
 */
export async function exportScenario(cluster: BenchCluster, settings: BenchSettings): Promise<Comparison[]> {
  const url = await cluster.createDatabase('bench_export');
  const org = await seedOrganization(url, 4);
  await bulkLoadRequests(url, org, settings.listRequests);
  await org.close();
  const service = await startService(url, { ROLE: 'api' });
  try {
    // Warm both paths (JIT, prepared statements, connection pool) on the first pages.
    await fetch(`${service.url}/api/public/deletion-requests/organization?limit=1000`, {
      headers: { 'x-api-key': org.pat },
    }).then((r) => r.arrayBuffer());
    const list = await timed(service, () => listRows(service, org.pat));
    const exported = await timed(service, () => exportRows(service, org.pat));
    if (exported.items !== settings.listRequests || list.items !== settings.listRequests) {
      throw new Error(`expected ${settings.listRequests} rows, exported ${exported.items}, listed ${list.items}`);
    }
    const ratio = exported.itemsPerSecond / list.itemsPerSecond;
    return [
      {
        scenario: 'export',
        case: `CSV export of ${settings.listRequests} requests vs the paginated list (1,000 per page)`,
        service: exported,
        baseline: list,
        ratio,
        target: `>= 0.5 x list rows/s; peak RSS growth ${exported.rssGrowthMb} MB <= ${FLAT_RSS_GROWTH_MB} MB`,
        met: ratio >= 0.5 && exported.rssGrowthMb <= FLAT_RSS_GROWTH_MB,
      },
    ];
  } finally {
    await service.stop();
  }
}
