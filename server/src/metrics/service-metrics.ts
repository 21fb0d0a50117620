import { CallbackGauge, Counter, Histogram, Registry } from './registry';

/** The process's metrics, scraped at /metrics (API) or on METRICS_PORT (any role). */
export const registry = new Registry();

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = registry.register(
  new Counter('dds_http_requests_total', 'HTTP requests answered, by method, route and status code.', [
    'method',
    'route',
    'status',
  ] as const),
);
export const httpDuration = registry.register(
  new Histogram(
    'dds_http_request_duration_seconds',
    'Time to answer an HTTP request, by method and route.',
    ['method', 'route'] as const,
    LATENCY_BUCKETS,
  ),
);
export const jobDuration = registry.register(
  new Histogram(
    'dds_job_duration_seconds',
    'Time one engine step (deletion call or status check) took, by integration type.',
    ['type'] as const,
    JOB_BUCKETS,
  ),
);
export const jobLag = registry.register(
  new Histogram(
    'dds_job_start_delay_seconds',
    'Time from an integration request falling due to a worker starting it, by integration type.',
    ['type'] as const,
    JOB_BUCKETS,
  ),
);
export const integrationOutcomes = registry.register(
  new Counter(
    'dds_integration_outcomes_total',
    'Engine step outcomes by integration type and resulting status (RETRY: will be tried again).',
    ['type', 'status'] as const,
  ),
);
registry.register(
  new CallbackGauge('dds_process_resident_memory_bytes', 'Resident set size of this process.', () => [
    { labels: {}, value: process.memoryUsage.rss() },
  ]),
);

/** Maps a path under a wildcard route (the REST facade, tRPC) to its operation's pattern, or null when nothing matches. */
export type RouteResolver = (path: string) => string | null;

export const UNMATCHED_ROUTE = 'unmatched';

/**
 * A bounded route label: Fastify's route pattern when it has one; under the REST facade's
 * and tRPC's wildcard routes the operation's own pattern (`/api/public/deletion-requests/{id}`,
 * `/trpc/workspaces.list`). Everything else (unknown paths, SPA deep links) is one value,
 * so neither memory nor the label set grows with what clients send, and no path a client
 * typed (possibly personal data) reaches a metric.
 */
export function routeLabel(pattern: string | undefined, url: string, resolve: RouteResolver): string {
  if (pattern && !pattern.includes('*') && !pattern.startsWith('/trpc/')) return pattern;
  if (!pattern) return UNMATCHED_ROUTE;
  return resolve(url.split('?')[0] ?? '') ?? UNMATCHED_ROUTE;
}

/** The worker's onStep hook: job latency, start delay and outcome by integration type. */
export function recordEngineStep(info: {
  ms: number;
  startedAt: number;
  report?: { integrationType: string; status: string; dueAt: Date | null } | null;
  error?: unknown;
}): void {
  const report = info.report;
  if (!report) {
    if (info.error) integrationOutcomes.inc({ type: 'unknown', status: 'ERROR' });
    return;
  }
  jobDuration.observe({ type: report.integrationType }, info.ms / 1000);
  if (report.dueAt)
    jobLag.observe({ type: report.integrationType }, Math.max(0, info.startedAt - report.dueAt.getTime()) / 1000);
  integrationOutcomes.inc({ type: report.integrationType, status: report.status });
}
