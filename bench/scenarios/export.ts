import fs from 'node:fs';
import { bulkLoadRequests } from '../lib/bulk-load';
import type { BenchCluster } from '../lib/database';
import { startService, type Child } from '../lib/processes';
import type { Comparison, TimedResult } from '../lib/report';
import { seedOrganization } from '../lib/seed';
import type { BenchSettings } from '../settings';

/**
 * How much higher the service's resident memory may climb in the second half of a stream than
 * in the first: memory that grows with the rows climbs higher and higher, flat memory reaches
 * the same ceiling in both halves. The RSS saws up and down on its own (garbage from pages
 * already sent waits for a major collection, then the RSS drops back), so the growth of the
 * peak over the run before it is V8's choice of when to collect: reported, not judged.
 */
const FLAT_RSS_GROWTH_MB = 64;

function rssMb(pid: number | undefined): number {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

interface ExportTiming extends TimedResult {
  /** Peak RSS during the run minus the peak before it. */
  peakGrowthMb: number;
  /** Highest RSS of the run's second half minus the highest of its first half (sampled every 100 ms). */
  secondHalfGrowthMb: number;
}

async function timed(service: Child, run: () => Promise<number>): Promise<ExportTiming> {
  const before = service.peakRssMb();
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMb(service.process.pid)), 100);
  const started = performance.now();
  const items = await run();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  samples.push(rssMb(service.process.pid));
  const peak = service.peakRssMb();
  const half = Math.floor(samples.length / 2);
  const secondHalfGrowthMb = half > 0 ? Math.max(...samples.slice(half)) - Math.max(...samples.slice(0, half)) : 0;
  return {
    seconds,
    items,
    itemsPerSecond: items / seconds,
    peakRssMb: peak,
    peakGrowthMb: peak - before,
    secondHalfGrowthMb,
  };
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
        target:
          `>= 0.5 x list rows/s; RSS peak of the second half over the first's ${exported.secondHalfGrowthMb} MB <= ${FLAT_RSS_GROWTH_MB} MB` +
          ` (peak ${exported.peakGrowthMb} MB over the list's, reported)`,
        met: ratio >= 0.5 && exported.secondHalfGrowthMb <= FLAT_RSS_GROWTH_MB,
      },
    ];
  } finally {
    await service.stop();
  }
}
