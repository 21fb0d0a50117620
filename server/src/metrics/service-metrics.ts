import { CallbackGauge, Counter, Histogram, Registry } from './registry';

/** The process's metrics, scraped at /metrics (API) or on METRICS_PORT (any role). */
export const registry = new Registry();

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = registry.register(
  new Counter('dds_http_requests_total', 'HTTP requests answered, by method, route and status code.', ['method', 'route', 'status'] as const),
);
export const httpDuration = registry.register(
  new Histogram('dds_http_request_duration_seconds', 'Time to answer an HTTP request, by method and route.', ['method', 'route'] as const, LATENCY_BUCKETS),
);
export const jobDuration = registry.register(
  new Histogram('dds_job_duration_seconds', 'Time one engine step (deletion call or status check) took, by integration type.', ['type'] as const, JOB_BUCKETS),
);
export const jobLag = registry.register(
  new Histogram('dds_job_start_delay_seconds', 'Time from an integration request falling due to a worker starting it, by integration type.', ['type'] as const, JOB_BUCKETS),
);
export const integrationOutcomes = registry.register(
  new Counter('dds_integration_outcomes_total', 'Engine step outcomes by integration type and resulting status (RETRY: will be tried again).', ['type', 'status'] as const),
);
registry.register(
  new CallbackGauge('dds_process_resident_memory_bytes', 'Resident set size of this process.', () => [{ labels: {}, value: process.memoryUsage.rss() }]),
);

const ID_SEGMENT = /^[a-z]{2,4}_[0-9a-z]{16,32}$/;
const MAX_ROUTES = 200;
const knownRoutes = new Set<string>();

/**
 * A bounded route label: Fastify's route pattern when it has one; for the REST facade and
 * tRPC (wildcard routes) the path with ids replaced by `:id`. Past MAX_ROUTES distinct
 * values everything new is "other", so random paths cannot grow memory without bound.
 */
export function routeLabel(pattern: string | undefined, url: string, status: number): string {
  if (pattern && !pattern.includes('*')) return pattern;
  if (status === 404 && !pattern) return 'unmatched';
  const path = (url.split('?')[0] ?? '').split('/').map((s) => (ID_SEGMENT.test(s) ? ':id' : s)).join('/');
  if (knownRoutes.has(path)) return path;
  if (knownRoutes.size >= MAX_ROUTES) return 'other';
  knownRoutes.add(path);
  return path;
}

/** The worker's onStep hook: job latency, start delay and outcome by integration type. */
export function recordEngineStep(info: { ms: number; startedAt: number; report?: { integrationType: string; status: string; dueAt: Date | null } | null; error?: unknown }): void {
  const report = info.report;
  if (!report) {
    if (info.error) integrationOutcomes.inc({ type: 'unknown', status: 'ERROR' });
    return;
  }
  jobDuration.observe({ type: report.integrationType }, info.ms / 1000);
  if (report.dueAt) jobLag.observe({ type: report.integrationType }, Math.max(0, info.startedAt - report.dueAt.getTime()) / 1000);
  integrationOutcomes.inc({ type: report.integrationType, status: report.status });
}
