import { randomUUID } from 'node:crypto';
import { BIGQUERY_API_HOST, type BigqueryPlace } from '@shared/integrations/bigquery';
import { parseRetryAfter, truncate, type HttpResponse } from '../runtime/http-client';
import { identifierRedactor } from '../runtime/redaction';
import { jsonBody, sleep } from '../runtime/vendor-http';
import type { Statement } from '../sql/dialect';
import { PermanentError, TransientError, type AdminContext, type Exchange } from '../types';
import { accessToken, forgetToken } from './auth';

/** What a query job needs: the configuration's project, location and endpoints, and the outbound tools. */
export type JobContext<Place extends BigqueryPlace = BigqueryPlace> = Pick<
  AdminContext<Place>,
  'http' | 'secrets' | 'trail' | 'now' | 'config'
> & {
  /** Blanked out of the messages of failed jobs; null for admin calls without a subject. */
  identifier: string | null;
};

interface ErrorProto {
  reason?: string;
  message?: string;
}
interface Job {
  jobReference?: { jobId?: string; location?: string };
  status?: { state?: string; errorResult?: ErrorProto };
  statistics?: { totalBytesProcessed?: string; query?: { numDmlAffectedRows?: string; totalBytesProcessed?: string } };
}
interface QueryResults {
  jobComplete?: boolean;
  rows?: { f?: { v?: unknown }[] }[];
  pageToken?: string;
}

/** What a finished job gave: its rows (cell values as BigQuery's JSON gives them), rows a DML statement changed, bytes it read. */
export interface JobResult {
  rows: unknown[][];
  affectedRows: number;
  bytesProcessed: number;
}

/** BigQuery's error reasons that a later attempt may not meet (Google: "retry using exponential backoff"). */
const RETRYABLE_REASONS = new Set(['rateLimitExceeded', 'backendError', 'internalError', 'jobBackendError']);
const MAX_CALL_ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
const RESULT_PAGE_ROWS = 2_000;
const MAX_RESULT_ROWS = 100_000;

const backoff = (attempt: number) =>
  Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt) * (0.5 + Math.random() / 2);

/** The job's query parameters with their values blanked: they carry the identifier and the hash key's padded forms. */
function scrubParameters(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubParameters);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value))
    out[key] = key === 'queryParameters' && Array.isArray(inner) ? inner.map(scrubParameter) : scrubParameters(inner);
  return out;
}
const scrubParameter = (p: { name?: string; parameterType?: unknown }) => ({
  name: p.name,
  parameterType: p.parameterType,
  parameterValue: { value: '[redacted]' },
});

/** Rewrites what the trail recorded of the calls since `from`: parameter values never reach the audit trail. */
function scrubExchanges(trail: Exchange[], from: number, sent: unknown, response?: HttpResponse) {
  for (const exchange of trail.slice(from)) {
    if (exchange.kind !== 'http') continue;
    if (exchange.request.body !== undefined) exchange.request.body = truncate(JSON.stringify(scrubParameters(sent)));
    if (exchange.response?.body !== undefined && response) {
      const body = jsonBody(response);
      exchange.response.body = body === undefined ? '[not recorded]' : truncate(JSON.stringify(scrubParameters(body)));
    }
  }
}

const errorOf = (response: HttpResponse) => {
  const body = jsonBody(response) as { error?: { message?: string; errors?: ErrorProto[] } } | undefined;
  return { reason: body?.error?.errors?.[0]?.reason, message: body?.error?.message ?? `HTTP ${response.status}` };
};

/** A BigQuery client for one integration: query jobs with named parameters in the configured project and location. */
export function bigqueryJobs(ctx: JobContext) {
  const base = `${ctx.config.baseUrl ?? BIGQUERY_API_HOST}/bigquery/v2/projects/${encodeURIComponent(ctx.config.projectId)}`;
  const location = ctx.config.location;
  const redact = ctx.identifier ? identifierRedactor(ctx.identifier) : (text: string) => text;

  /** One REST call, with the service account's token; 429, rateLimitExceeded and 5xx are retried with exponential backoff. */
  async function call(method: 'GET' | 'POST', url: string, body?: unknown): Promise<HttpResponse> {
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const token = await accessToken(ctx, ctx.config.tokenUri);
      const from = ctx.trail.length;
      let response: HttpResponse | undefined;
      try {
        response = await ctx.http.request({
          method,
          url,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          timeoutMs: 60_000,
        });
      } finally {
        scrubExchanges(ctx.trail, from, body, response);
      }
      if (response.status >= 200 && response.status < 300) return response;
      const { reason, message } = errorOf(response);
      if (response.status === 401 && !refreshed) {
        forgetToken(token);
        refreshed = true;
        attempt--;
        continue;
      }
      const retryable =
        response.status === 429 || response.status >= 500 || (reason !== undefined && RETRYABLE_REASONS.has(reason));
      if (retryable && attempt + 1 < MAX_CALL_ATTEMPTS) {
        await sleep(parseRetryAfter(response.headers['retry-after']) ?? backoff(attempt));
        continue;
      }
      if (response.status === 409) return response;
      const said = `BigQuery: ${redact(message)}${reason ? ` (${reason})` : ''}`;
      // quotaExceeded is a longer-term quota (a day's): the step waits for the engine's next attempt.
      if (retryable || reason === 'quotaExceeded')
        throw new TransientError(said, parseRetryAfter(response.headers['retry-after']));
      throw new PermanentError(said);
    }
  }

  const jobUrl = (jobId: string) =>
    `${base}/jobs/${encodeURIComponent(jobId)}?location=${encodeURIComponent(location)}`;

  /** Inserts the job (our own job id: a repeated insert after a lost answer meets 409 and is not run twice), then waits for DONE. */
  async function runJob(statement: Statement, dryRun: boolean, ceiling = false): Promise<Job> {
    const jobId = `dsr_${randomUUID().replace(/-/g, '')}`;
    const job = {
      jobReference: { projectId: ctx.config.projectId, jobId, location },
      configuration: {
        query: {
          query: statement.text,
          useLegacySql: false,
          parameterMode: 'NAMED',
          queryParameters: statement.values.map((value, i) => ({
            name: `p${i + 1}`,
            parameterType: { type: 'STRING' },
            parameterValue: { value },
          })),
          ...(ceiling && !dryRun ? { maximumBytesBilled: String(ctx.config.maxBytesScanned) } : {}),
        },
        ...(dryRun ? { dryRun: true } : { jobTimeoutMs: String(ctx.config.statementTimeoutMs) }),
      },
    };
    const inserted = await call('POST', `${base}/jobs`, job);
    let state = inserted.status === 409 ? undefined : (jsonBody(inserted) as Job);
    const deadline = Date.now() + ctx.config.statementTimeoutMs + 30_000;
    for (let poll = 0; state?.status?.state !== 'DONE'; poll++) {
      if (Date.now() > deadline) throw new TransientError(`BigQuery: job ${jobId} was not done in time`);
      if (state) await sleep(Math.min(2_000, 100 * 2 ** poll));
      state = jsonBody(await call('GET', jobUrl(jobId))) as Job;
    }
    const failure = state.status?.errorResult;
    if (failure) {
      const said = `BigQuery: ${redact(failure.message ?? 'the job failed')}${failure.reason ? ` (${failure.reason})` : ''}`;
      if (failure.reason && RETRYABLE_REASONS.has(failure.reason)) throw new TransientError(said);
      throw new PermanentError(said);
    }
    return { ...state, jobReference: { jobId, location } };
  }

  /** The rows of a finished query job, page by page. */
  async function rowsOf(jobId: string): Promise<unknown[][]> {
    const rows: unknown[][] = [];
    let pageToken: string | undefined;
    do {
      const page = jsonBody(
        await call(
          'GET',
          `${base}/queries/${encodeURIComponent(jobId)}?location=${encodeURIComponent(location)}&maxResults=${RESULT_PAGE_ROWS}${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
        ),
      ) as QueryResults;
      if (page.jobComplete === false) throw new TransientError('BigQuery: the results were not ready');
      rows.push(...(page.rows ?? []).map((row) => (row.f ?? []).map((cell) => cell.v)));
      pageToken = page.pageToken;
    } while (pageToken && rows.length < MAX_RESULT_ROWS);
    return rows;
  }

  return {
    /**
     * Runs the statement and records it in the trail (its text only, never its parameters).
     * `ceiling`: a rule's statement, which BigQuery fails rather than bill past the integration's byte ceiling.
     */
    async query(statement: Statement, options: { rows: boolean; ceiling?: boolean }): Promise<JobResult> {
      const started = Date.now();
      const step: Extract<Exchange, { kind: 'sql' }> = { kind: 'sql', statement: statement.text, durationMs: 0 };
      ctx.trail.push(step);
      try {
        const job = await runJob(statement, false, options.ceiling);
        const rows = options.rows ? await rowsOf(job.jobReference!.jobId!) : [];
        const affectedRows = Number(job.statistics?.query?.numDmlAffectedRows ?? 0);
        step.rowCount = options.rows ? rows.length : affectedRows;
        return { rows, affectedRows, bytesProcessed: Number(job.statistics?.totalBytesProcessed ?? 0) };
      } catch (error) {
        step.error = (error as Error).message;
        throw error;
      } finally {
        step.durationMs = Date.now() - started;
      }
    },
    /** The locations of the project's datasets (datasets.list). */
    async datasetLocations(): Promise<string[]> {
      const list = jsonBody(await call('GET', `${base}/datasets?all=true`)) as { datasets?: { location?: string }[] };
      return [...new Set((list.datasets ?? []).flatMap((d) => (d.location ? [d.location] : [])))];
    },
    /** BigQuery's dry run of the statement: the bytes it would read; nothing runs. */
    async bytesToScan(statement: Statement): Promise<number> {
      const job = await runJob(statement, true);
      return Number(job.statistics?.totalBytesProcessed ?? job.statistics?.query?.totalBytesProcessed ?? 0);
    },
  };
}

export type BigqueryJobs = ReturnType<typeof bigqueryJobs>;

export const datasetLocations = (jobs: BigqueryJobs) => jobs.datasetLocations();
