import autocannon from 'autocannon';
import type { Child } from './processes';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  failures: number;
  peakRssMb: number;
  /** The server process's CPU time (user and system) per answered request, in ms. */
  cpuMsPerRequest: number;
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
  const cpuBefore = target.cpuMs();
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
  const cpuMs = target.cpuMs() - cpuBefore;
  return {
    requestsPerSecond: Math.round((ok / result.duration) * 10) / 10,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: ok,
    failures: result.non2xx + result.errors + result.timeouts,
    peakRssMb: target.peakRssMb(),
    cpuMsPerRequest: ok ? Math.round((cpuMs / ok) * 1000) / 1000 : 0,
  };
}

/**
 * A few requests first, so neither side is measured cold (pool, plan cache); then, with
 * `steadyRounds`, rounds at full load until the side has answered `STEADY_REQUESTS` and its
 * CPU time per request stopped falling (within 5 % of the round before), at most that many
 * rounds: a process's JIT compiles its hot code over its first thousands of requests, and a
 * long-running service is measured as it runs, not while it compiles (the service's create
 * took 5.6, 3.9, 2.7, 1.9 ms of CPU a request in its first four 3-second rounds).
 */
export async function warmUp(target: Child, spec: LoadSpec, steadyRounds = 0): Promise<void> {
  await drive(target, { ...spec, durationSeconds: 1, connections: Math.min(spec.connections, 4) });
  let previous = Infinity;
  let answered = 0;
  for (let round = 0; round < steadyRounds; round++) {
    const { cpuMsPerRequest, requests } = await drive(target, spec);
    answered += requests;
    if (answered >= STEADY_REQUESTS && cpuMsPerRequest > previous * 0.95) return;
    previous = cpuMsPerRequest;
  }
}

/** Requests a side answers in its warm-up before it counts as steady. */
const STEADY_REQUESTS = 5_000;

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
      cpuMsPerRequest: requests
        ? Math.round((results.reduce((sum, r) => sum + r.cpuMsPerRequest * r.requests, 0) / requests) * 1000) / 1000
        : 0,
    };
  }) as { [K in keyof T]: LoadResult };
}
