import { randomUUID } from 'node:crypto';
import type { AccountSecretsByType } from '@shared/integrations';
import type { HttpResponse } from '../runtime/http-client';
import { destinationMessage, parseRetryAfter } from '../runtime/http-client';
import { identifierRedactor } from '../runtime/redaction';
import type { Statement } from '../sql/dialect';
import { PermanentError, TransientError, type DriverContext, type Exchange } from '../types';
import { keypairJwt } from './jwt';

type SnowflakeSecrets = AccountSecretsByType['SNOWFLAKE'];
export type SnowflakeContext = Pick<DriverContext, 'http' | 'secrets' | 'trail'>;

/** A statement's answer: its column names and rows (every value as text, as the API sends it). */
export interface SnowflakeResult {
  columns: string[];
  rows: (string | null)[][];
  /** Rows a DML statement changed (the API's `stats`), when it says. */
  changed?: number;
}

/** Attempts of one submission when Snowflake answers 429, 500, 503 or 504 (the same request id each time). */
const SUBMIT_ATTEMPTS = 4;
const USER_AGENT = 'erasure-service/1.0';
/** How long past the statement's own timeout (which Snowflake enforces) polling goes on before it cancels. */
const POLL_SLACK_MS = 2_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Exponential backoff with full jitter, as the SQL API's document recommends for 503 and 504. */
const backoff = (attempt: number, retryAfterMs?: number) =>
  retryAfterMs ?? Math.round(Math.random() * Math.min(4_000, 200 * 2 ** attempt));

const RETRIED = new Set([429, 500, 503, 504]);

function snowflakeBaseUrl(ctx: Pick<SnowflakeContext, 'secrets'>): string {
  const secrets = ctx.secrets as SnowflakeSecrets | null;
  if (!secrets?.account) throw new PermanentError('This integration needs a Snowflake account');
  return (secrets.endpoint ?? `https://${secrets.account.toLowerCase()}.snowflakecomputing.com`).replace(/\/+$/, '');
}

/**
 * Keeps the recorded calls to shapes: a request body's bind values (the identifier, the hash
 * key's padded forms) are replaced, so only the statement and its binding types are kept.
 */
function recordShapesOnly(trail: Exchange[], from: number): void {
  for (const step of trail.slice(from)) {
    if (step.kind !== 'http' || !step.request.body) continue;
    try {
      const body = JSON.parse(step.request.body) as { bindings?: Record<string, { type: string; value: string }> };
      for (const binding of Object.values(body.bindings ?? {})) binding.value = '[bound]';
      step.request.body = JSON.stringify(body);
    } catch {
      step.request.body = '[not recorded]';
    }
  }
}

/** Snowflake's words for a failed statement, without any value of the subject it might quote. */
function failure(response: HttpResponse, redact: (text: string) => string): string {
  let text = destinationMessage(response);
  try {
    const body = response.json() as { code?: string; sqlState?: string };
    if (body.code) text += ` (code ${body.code}${body.sqlState ? `, SQL state ${body.sqlState}` : ''})`;
  } catch {
    // not JSON
  }
  return redact(text);
}

/**
 * Snowflake's SQL API v2: each statement is submitted with its bind variables, under a request
 * id kept for resubmissions (429 and 5xx answers are retried with `retry=true`); a statement
 * still running (202) is polled by its handle until the statement timeout, then cancelled; a
 * result in several partitions is read partition by partition.
 */
export function snowflakeClient(ctx: SnowflakeContext, identifier = '') {
  const secrets = ctx.secrets as SnowflakeSecrets;
  const base = snowflakeBaseUrl(ctx);
  const redact = identifier ? identifierRedactor(identifier) : (text: string) => text;
  const headers = () => ({
    authorization: `Bearer ${keypairJwt(secrets)}`,
    'x-snowflake-authorization-token-type': 'KEYPAIR_JWT',
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  });
  const call = async (method: string, url: string, body?: string): Promise<HttpResponse> => {
    const from = ctx.trail.length;
    try {
      return await ctx.http.request({ method, url, headers: headers(), body, timeoutMs: 60_000 });
    } finally {
      recordShapesOnly(ctx.trail, from);
    }
  };

  const statementUrl = (handle: string, query = '') =>
    `${base}/api/v2/statements/${encodeURIComponent(handle)}${query}`;

  /** Every partition of a finished statement's result. */
  async function collect(first: Record<string, any>): Promise<SnowflakeResult> {
    const meta = first.resultSetMetaData ?? {};
    const rows: (string | null)[][] = [...(first.data ?? [])];
    const partitions = (meta.partitionInfo ?? []).length;
    for (let partition = 1; partition < partitions; partition++) {
      const response = await call('GET', statementUrl(first.statementHandle, `?partition=${partition}`));
      if (response.status !== 200)
        throw new TransientError(`Snowflake result partition ${partition}: ${failure(response, redact)}`);
      rows.push(...(((response.json() as { data?: (string | null)[][] }).data ?? []) as (string | null)[][]));
    }
    const stats = first.stats as Record<string, number> | undefined;
    const changed = stats
      ? (stats.numRowsDeleted ?? 0) + (stats.numRowsUpdated ?? 0) + (stats.numRowsInserted ?? 0)
      : undefined;
    return { columns: (meta.rowType ?? []).map((c: { name: string }) => c.name), rows, changed };
  }

  /** The answer of a submission or a poll, or null while the statement runs. */
  function settled(response: HttpResponse): Record<string, any> | null {
    if (response.status === 200) return response.json() as Record<string, any>;
    if (response.status === 202) return null;
    if (response.status === 408) throw new TransientError(`Snowflake cancelled the statement at its timeout`);
    if (response.status === 401 || response.status === 403)
      throw new PermanentError(`Snowflake refused the key-pair authentication: ${failure(response, redact)}`);
    if (RETRIED.has(response.status))
      throw new TransientError(
        `Snowflake: ${failure(response, redact)}`,
        parseRetryAfter(response.headers['retry-after']),
      );
    throw new PermanentError(`Snowflake: ${failure(response, redact)}`);
  }

  async function submit(statement: Statement, timeoutMs: number): Promise<HttpResponse> {
    const requestId = randomUUID();
    const body = JSON.stringify({
      statement: statement.text,
      timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
      database: secrets.database,
      warehouse: secrets.warehouse,
      ...(secrets.role ? { role: secrets.role } : {}),
      ...(statement.values.length
        ? {
            bindings: Object.fromEntries(statement.values.map((value, i) => [String(i + 1), { type: 'TEXT', value }])),
          }
        : {}),
    });
    let response: HttpResponse | undefined;
    for (let attempt = 0; attempt < SUBMIT_ATTEMPTS; attempt++) {
      if (attempt > 0) await sleep(backoff(attempt, parseRetryAfter(response!.headers['retry-after'])));
      const retry = attempt > 0 ? '&retry=true' : '';
      response = await call('POST', `${base}/api/v2/statements?requestId=${requestId}${retry}`, body);
      if (!RETRIED.has(response.status)) return response;
    }
    return response!;
  }

  return {
    /** Runs one statement to its end (or its timeout, when it is cancelled) and reads its whole result. */
    async execute(statement: Statement, timeoutMs: number): Promise<SnowflakeResult> {
      const started = Date.now();
      const step: Extract<Exchange, { kind: 'sql' }> = { kind: 'sql', statement: statement.text, durationMs: 0 };
      ctx.trail.push(step);
      try {
        let response = await submit(statement, timeoutMs);
        let answer = settled(response);
        const handle = answer ? null : String((response.json() as { statementHandle?: string }).statementHandle);
        for (let poll = 0; !answer; poll++) {
          if (Date.now() - started > timeoutMs + POLL_SLACK_MS) {
            await call('POST', statementUrl(handle!, '/cancel')).catch(() => undefined);
            throw new TransientError(`Snowflake statement still running after ${timeoutMs} ms; it was cancelled`);
          }
          await sleep(Math.min(1_000, 50 * 2 ** poll));
          response = await call('GET', statementUrl(handle!));
          answer = settled(response);
        }
        const result = await collect(answer);
        step.rowCount = result.changed ?? result.rows.length;
        return result;
      } catch (error) {
        step.error = redact((error as Error).message);
        throw error;
      } finally {
        step.durationMs = Date.now() - started;
      }
    },
  };
}
