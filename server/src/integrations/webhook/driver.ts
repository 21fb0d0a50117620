import type { WebhookConfig } from '@shared/integrations/webhook';
import { isSuccessStatus, outcomeForHttpError, type HttpResponse } from '../runtime/http-client';
import { readJsonPath } from '../runtime/json-path';
import { queuedByRateLimit } from '../runtime/vendor-http';
import { renderHeader, renderJsonBody, renderUrl, TemplateError, type TemplateValues } from '../runtime/templating';
import type { Driver, DriverContext, Outcome } from '../types';

type StatusSpec = Pick<
  NonNullable<WebhookConfig['status']>,
  'successValues' | 'failedValues' | 'canceledValues' | 'statusPath'
> &
  Partial<Pick<NonNullable<WebhookConfig['status']>, 'pendingValues'>>;

/**
 * What the status call's value means (case-insensitive): one of the success, failed or
 * canceled values finishes the request (a canceled value as FAILED: the data is still there, and
 * only a member cancels here); no value yet, or one of the pending values, is PENDING (the job is
 * still queued at the destination); any other value means the destination is at work: PROCESSING.
 */
export function statusOutcome(spec: StatusSpec, raw: unknown): Outcome {
  const value = raw === undefined || raw === null || typeof raw === 'object' ? '' : String(raw).trim();
  const matches = (list: string[]) => list.some((v) => v.toLowerCase() === value.toLowerCase());
  if (!value) return { kind: 'pending', status: 'PENDING', message: `No status value at ${spec.statusPath} yet` };
  if (matches(spec.successValues))
    return {
      kind: 'success',
      message: `Status "${value}"`,
      evidence: { statusValue: value, statusPath: spec.statusPath },
    };
  if (matches(spec.failedValues)) return { kind: 'failed', reason: `Your system reported status "${value}"` };
  // CANCELED is a member's decision in this service; a job canceled over there left the data in place.
  if (matches(spec.canceledValues))
    return {
      kind: 'failed',
      reason: `Your system reported status "${value}": the deletion was canceled there, not done; retry to ask again`,
    };
  if (matches(spec.pendingValues ?? [])) return { kind: 'pending', status: 'PENDING', message: `Status "${value}"` };
  return { kind: 'pending', status: 'PROCESSING', message: `Status "${value}"` };
}

type Call = { method: string; url: string; headers: Record<string, string>; body?: string };

function templateValues(
  ctx: Pick<DriverContext, 'secrets'> & { identifier?: string; trackingId?: string | null },
): TemplateValues {
  const values: TemplateValues = {};
  for (const [key, value] of Object.entries(ctx.secrets ?? {})) if (typeof value === 'string') values[key] = value;
  if (ctx.identifier !== undefined) values.identifier = ctx.identifier;
  if (ctx.trackingId) values.trackingId = ctx.trackingId;
  return values;
}

async function call(
  ctx: DriverContext<WebhookConfig>,
  spec: Call,
  phase: 'initiate' | 'status' | 'cancel',
): Promise<HttpResponse> {
  const values = templateValues(ctx);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.headers)) headers[name] = renderHeader(value, values);
  // Lets the receiver de-duplicate a call repeated after a crash or retry: the same key for
  // every repeat of one call, another for each kind of call (a receiver that keeps answers by
  // key must not answer a cancel with the deletion's answer) and for each identifier an
  // integration request sends (nor the second email's deletion with the first one's).
  const key = ctx.callKey ?? ctx.integrationRequestId;
  headers['Idempotency-Key'] ??= phase === 'initiate' ? key : `${key}:${phase}`;
  return ctx.http.request({
    method: spec.method,
    url: renderUrl(spec.url, values),
    headers,
    body: spec.body !== undefined && spec.method !== 'GET' ? renderJsonBody(spec.body, values) : undefined,
    timeoutMs: ctx.config.timeoutMs,
  });
}

function parseJson(response: HttpResponse): unknown {
  try {
    return response.json();
  } catch {
    return undefined;
  }
}

async function withTemplateErrors(run: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TemplateError) return { kind: 'failed', reason: error.message };
    throw error;
  }
}

export const webhookDriver: Driver<WebhookConfig> = {
  type: 'WEBHOOK',
  async: (config) => config.mode === 'async',
  canCancel: (config) => Boolean(config.cancel),
  expectedCompletion: 'seconds (sync) or as your system reports (async)',

  requestDeletion: (ctx) =>
    withTemplateErrors(async () => {
      const response = await call(ctx, ctx.config.initiate, 'initiate');
      // A 429 says "later", not "never": the request waits as long as the answer asks (a minute
      // when it names no wait) and keeps its attempts, as with every vendor's rate limit.
      if (response.status === 429) return queuedByRateLimit('Webhook', response, ctx.now, 60_000);
      if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
      if (ctx.config.mode === 'sync')
        return {
          kind: 'success',
          message: `Webhook answered HTTP ${response.status}`,
          evidence: { httpStatus: response.status },
        };
      const trackingId = readJsonPath(parseJson(response), ctx.config.initiate.trackingIdPath!);
      if (trackingId === undefined || trackingId === null || trackingId === '' || typeof trackingId === 'object') {
        return { kind: 'failed', reason: `No tracking id at ${ctx.config.initiate.trackingIdPath} in the response` };
      }
      return {
        kind: 'accepted',
        trackingId: String(trackingId),
        status: 'PENDING',
        message: `Accepted with tracking id ${trackingId}`,
      };
    }),

  checkStatus: (ctx) =>
    withTemplateErrors(async () => {
      const spec = ctx.config.status;
      if (!spec)
        return {
          kind: 'success',
          message: 'No status call configured; accepted counts as done',
          evidence: { statusCall: 'none configured: accepted counts as done' },
        };
      const response = await call(ctx, spec, 'status');
      if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
      return statusOutcome(spec, readJsonPath(parseJson(response), spec.statusPath));
    }),

  async cancel(ctx) {
    if (!ctx.config.cancel) return { canceled: false, message: 'This webhook has no cancel call' };
    try {
      const response = await call(ctx, ctx.config.cancel, 'cancel');
      if (isSuccessStatus(response.status))
        return { canceled: true, message: `Cancel call answered HTTP ${response.status}` };
      return { canceled: false, message: `Cancel call answered HTTP ${response.status}` };
    } catch (error) {
      return { canceled: false, message: (error as Error).message };
    }
  },

  async testConnection(ctx) {
    // A harmless reachability check: the initiate URL's origin, without sending a deletion.
    try {
      const origin = new URL(
        renderUrl(ctx.config.initiate.url, { ...templateValues(ctx), identifier: 'test', trackingId: 'test' }),
      ).origin;
      const response = await ctx.http.request({
        method: 'HEAD',
        url: origin,
        timeoutMs: Math.min(ctx.config.timeoutMs, 10_000),
      });
      return { ok: response.status < 500, message: `${origin} answered HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
