import autocannon from 'autocannon';
import type { Child } from './processes';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  failures: number;
  peakRssMb: number;
}

export interface LoadSpec {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Builds the n-th request body (unique identifiers, like real traffic). */
  body?: (n: number) => unknown;
  connections: number;
  durationSeconds: number;
}

/** Drives `target` (loopback only) with autocannon for a bounded time. */
export async function drive(target: Child, spec: LoadSpec): Promise<LoadResult> {
  if (!target.url.startsWith('http://127.0.0.1:')) throw new Error('load is only ever sent to loopback');
  let n = 0;
  const result = await autocannon({
    url: target.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout: 30,
    requests: [
      {
        method: spec.method ?? 'GET',
        path: spec.path,
        headers: { 'content-type': 'application/json', ...(spec.headers ?? {}) },
        ...(spec.body ? { setupRequest: (request) => ({ ...request, body: JSON.stringify(spec.body!(n++)) }) } : {}),
      },
    ],
  });
  const ok = result['2xx'];
  return {
    requestsPerSecond: Math.round((ok / result.duration) * 10) / 10,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: ok,
    failures: result.non2xx + result.errors + result.timeouts,
    peakRssMb: target.peakRssMb(),
  };
}

/** A few requests first, so neither side is measured cold (JIT, pool, plan cache). */
export async function warmUp(target: Child, spec: LoadSpec): Promise<void> {
  await drive(target, { ...spec, durationSeconds: 1, connections: Math.min(spec.connections, 4) });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Drives each target in turn for `rounds` short rounds (A B A B ...) so that background
 * noise on the machine hits every side alike; throughput is the total over all rounds,
 * latencies the median of the rounds' percentiles.
 */
export async function interleave<T extends readonly { target: Child; spec: LoadSpec }[]>(
  targets: readonly [...T],
  rounds: number,
): Promise<{ [K in keyof T]: LoadResult }> {
  const perTarget: LoadResult[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, { target, spec }] of targets.entries()) perTarget[i]!.push(await drive(target, spec));
  }
  return perTarget.map((results, i): LoadResult => {
    const seconds = targets[i]!.spec.durationSeconds * results.length;
    const requests = results.reduce((sum, r) => sum + r.requests, 0);
    return {
      requestsPerSecond: Math.round((requests / seconds) * 10) / 10,
      p50Ms: median(results.map((r) => r.p50Ms)),
      p99Ms: median(results.map((r) => r.p99Ms)),
      requests,
      failures: results.reduce((sum, r) => sum + r.failures, 0),
      peakRssMb: Math.max(...results.map((r) => r.peakRssMb)),
    };
  }) as { [K in keyof T]: LoadResult };
}
