import type { MixpanelConfig } from '@shared/integrations';
import { destinationMessage, isSuccessStatus, outcomeForHttpError } from '../runtime/http-client';
import { TransientError, type Driver, type DriverContext } from '../types';
import { credential, jsonBody, queuedByRateLimit, rateLimitError, retryAfterMs } from '../runtime/vendor-http';
import { mixpanelClient } from './client';
import { mixpanelRateLimiter } from './rate-limiter';
import { MIXPANEL_CANCELABLE, mixpanelStatusOutcome } from './status';

/** The GDPR token: an OAUTH account's access token, or an API_KEY account's key. */
const clientFor = (ctx: Pick<DriverContext<MixpanelConfig>, 'http' | 'config' | 'secrets'>) =>
  mixpanelClient(ctx.http, ctx.config, credential(ctx, 'accessToken', 'apiKey'));

/** Status checks and cancels wait their turn inline, for up to this long. */
const INLINE_WAIT_MS = 5_000;

/** The task id of a create answer ({results: {task_id}}). */
function taskIdOf(body: unknown): string | null {
  const taskId = (body as { results?: { task_id?: unknown } } | undefined)?.results?.task_id;
  return (typeof taskId === 'string' || typeof taskId === 'number') && taskId !== '' ? String(taskId) : null;
}

/**
 * The tasks a 409 names: {status: "error", error: {conflicting_distinct_ids, conflicting_task_ids,
 * error}}, as Rudderstack reads it from Mixpanel (SOURCES.md); none when the body names none.
 */
function conflictingTaskIds(body: unknown): string[] {
  const ids = (body as { error?: { conflicting_task_ids?: unknown } } | undefined)?.error?.conflicting_task_ids;
  return (Array.isArray(ids) ? ids : [])
    .filter((id) => (typeof id === 'string' && id !== '') || typeof id === 'number')
    .map(String);
}

/** A 409 that names no task: Mixpanel is deleting already; a create is sent again after this long. */
export const CONFLICT_RECHECK_MS = 3_600_000;

function taskStatus(body: unknown): string {
  const results = (body as { results?: { status?: unknown } } | undefined)?.results;
  return typeof results?.status === 'string' ? results.status : '';
}

/**
 * The law Mixpanel files the deletion under: the request's own regulation when it is GDPR or CCPA
 * (CPRA requests are CCPA's), the integration's setting for a custom policy or none.
 */
function complianceTypeOf(ctx: Pick<DriverContext<MixpanelConfig>, 'regulation' | 'config'>) {
  return ctx.regulation === 'GDPR' || ctx.regulation === 'CCPA' ? ctx.regulation : ctx.config.complianceType;
}

export const mixpanelDriver: Driver<MixpanelConfig> = {
  type: 'MIXPANEL',
  async: true,
  canCancel: () => true,
  expectedCompletion: 'days to a few weeks (Mixpanel processes deletion tasks in batches)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    // Queue rather than fail: wait for this project's next free second without using an attempt.
    const comeBackAt = await mixpanelRateLimiter.turn(
      client.rateLimitKey,
      ctx.callKey ?? ctx.integrationRequestId,
      1_000,
    );
    if (comeBackAt)
      return {
        kind: 'deferred',
        until: comeBackAt,
        message: `Queued behind other calls to this Mixpanel project (1 request per second); sending at ${comeBackAt.toISOString()}`,
      };
    const response = await client.createDeletion([ctx.identifier], complianceTypeOf(ctx));
    if (response.status === 429) {
      mixpanelRateLimiter.backOff(client.rateLimitKey, Date.now() + retryAfterMs(response, 1_000));
      return queuedByRateLimit('Mixpanel', response, ctx.now);
    }
    if (response.status === 409) {
      // Mixpanel is already deleting this distinct id (our earlier send whose answer was lost, or
      // another tool's): that task is the one to follow. Never a failure.
      const [existing, ...others] = conflictingTaskIds(jsonBody(response));
      if (existing)
        return {
          kind: 'accepted',
          trackingId: existing,
          status: 'PENDING',
          message: `Mixpanel already has deletion task ${existing} for this distinct id (HTTP 409); following it${others.length ? ` (it also names ${others.join(', ')})` : ''}`,
        };
      // Without a task to follow, ask again later: once Mixpanel's own task is done, a create is accepted and followed.
      const until = new Date(ctx.now.getTime() + CONFLICT_RECHECK_MS);
      return {
        kind: 'deferred',
        until,
        message: `Mixpanel is already deleting this distinct id (HTTP 409) but did not name its task; asking again at ${until.toISOString()}`,
      };
    }
    if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
    const taskId = taskIdOf(jsonBody(response));
    if (!taskId) return { kind: 'failed', reason: 'Mixpanel accepted the deletion but returned no task_id' };
    return {
      kind: 'accepted',
      trackingId: taskId,
      status: 'PENDING',
      message: `Mixpanel deletion task ${taskId} created (${complianceTypeOf(ctx)})`,
    };
  },

  async checkStatus(ctx) {
    const client = clientFor(ctx);
    const taskId = ctx.trackingId!;
    const comeBackAt = await mixpanelRateLimiter.turn(
      client.rateLimitKey,
      `${ctx.integrationRequestId}:check`,
      INLINE_WAIT_MS,
    );
    if (comeBackAt)
      throw new TransientError('Waiting for a free slot in the Mixpanel rate limit', comeBackAt.getTime() - Date.now());
    const response = await client.getDeletion(taskId);
    if (response.status === 429) throw rateLimitError('Mixpanel', response);
    if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
    return mixpanelStatusOutcome(taskStatus(jsonBody(response)), taskId);
  },

  async cancel(ctx) {
    try {
      const client = clientFor(ctx);
      const comeBackAt = await mixpanelRateLimiter.turn(
        client.rateLimitKey,
        `${ctx.integrationRequestId}:cancel`,
        INLINE_WAIT_MS,
      );
      if (comeBackAt) return { canceled: false, message: 'Mixpanel rate limit: try again in a few seconds' };
      const response = await client.cancelDeletion(ctx.trackingId!);
      if (isSuccessStatus(response.status))
        return { canceled: true, message: `Mixpanel deletion task ${ctx.trackingId} canceled` };
      return {
        canceled: false,
        message: `Mixpanel cancels only ${MIXPANEL_CANCELABLE.join(' or ')} tasks: ${destinationMessage(response)}`,
      };
    } catch (error) {
      return { canceled: false, message: (error as Error).message };
    }
  },

  async testConnection(ctx) {
    // Reads the status of a task that does not exist: proves the token and project without deleting anything.
    try {
      const client = clientFor(ctx);
      await mixpanelRateLimiter.turn(client.rateLimitKey, `test:${Date.now()}:${Math.random()}`, INLINE_WAIT_MS);
      const response = await client.getDeletion('connection-test');
      if (response.status === 401 || response.status === 403)
        return { ok: false, message: `Mixpanel refused the token: ${destinationMessage(response)}` };
      return {
        ok: response.status < 500 && response.status !== 429,
        message: `Mixpanel answered HTTP ${response.status}`,
      };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
