import type { LoadResult } from './load';

export interface Comparison {
  scenario: string;
  case: string;
  service: LoadResult | TimedResult | LatencyResult | StorageResult;
  /** Absent where the figure stands against its target alone (bytes at rest). */
  baseline?: LoadResult | TimedResult | LatencyResult;
  /** service / baseline throughput, or baseline p99 / service p99 multiples, as the target defines. */
  ratio: number;
  target: string;
  met: boolean;
  floor?: LoadResult;
}

export interface TimedResult {
  seconds: number;
  itemsPerSecond: number;
  peakRssMb: number;
  items: number;
  /** CPU time (user and system) of the service's processes per item, in ms (the database's not counted). */
  cpuMsPerRequest?: number;
}

/** Bytes at rest per integration request, and what each table holds of them. */
export interface StorageResult {
  integrationRequests: number;
  bytesPerIntegrationRequest: number;
  tables: Record<string, number>;
  /** The largest columns' values (pg_column_size), per integration request. */
  columns?: Record<string, number>;
}

/** Latencies of requests measured one at a time. */
export interface LatencyResult {
  samples: number;
  p50Ms: number;
  p90Ms: number;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

export function describe(result: LoadResult | TimedResult | LatencyResult | StorageResult): string {
  if ('bytesPerIntegrationRequest' in result)
    return `${result.bytesPerIntegrationRequest} bytes per integration request (${result.integrationRequests}): ${Object.entries(
      result.tables,
    )
      .map(([table, bytes]) => `${table} ${bytes}`)
      .join(', ')}${
      result.columns
        ? `; largest columns: ${Object.entries(result.columns)
            .map(([column, bytes]) => `${column} ${bytes}`)
            .join(', ')}`
        : ''
    }`;
  if ('samples' in result) return `p50 ${result.p50Ms} ms  p90 ${result.p90Ms} ms  (${result.samples} requests)`;
  if ('seconds' in result)
    return `${result.itemsPerSecond.toFixed(0)}/s (${result.items} in ${result.seconds.toFixed(2)} s, peak RSS ${result.peakRssMb} MB${result.cpuMsPerRequest ? `, CPU ${result.cpuMsPerRequest.toFixed(2)} ms/req` : ''})`;
  return `${result.requestsPerSecond.toFixed(0)} req/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  RSS ${result.peakRssMb} MB${result.cpuMsPerRequest ? `  CPU ${result.cpuMsPerRequest.toFixed(2)} ms/req` : ''}${result.failures ? `  FAILURES ${result.failures}` : ''}`;
}

export function printComparison(c: Comparison): void {
  const mark = c.met ? 'ok ' : 'MISS';
  process.stdout.write(
    `${mark} ${pad(`${c.scenario} / ${c.case}`, 46)} ratio ${c.ratio.toFixed(2)} (${c.target})\n` +
      `       service:  ${describe(c.service)}\n` +
      (c.baseline ? `       baseline: ${describe(c.baseline)}\n` : '') +
      (c.floor ? `       floor:    ${describe(c.floor)}\n` : ''),
  );
}
