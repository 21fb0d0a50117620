import { ONESIGNAL_API_HOST, type OnesignalConfig } from '@shared/integrations/onesignal';
import { isSuccessStatus, type HttpClient, type HttpResponse } from '../runtime/http-client';
import { connectionVerdict, deletionFailure, statusFailure, str, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/**
 * OneSignal errors: `{errors: ["…"]}` or `{errors: [{code, title}]}`. A 429 waits Retry-After,
 * else the 100 seconds OneSignal asks of non-urgent retries.
 */
const style: VendorStyle = {
  vendor: 'OneSignal',
  fallbackWaitMs: 100_000,
  message: (body) => {
    const first = (body as { errors?: unknown[] } | undefined)?.errors?.[0];
    return typeof first === 'string' ? first : str((first as { title?: unknown } | undefined)?.title);
  },
};

/** OneSignal's user API with an app's REST API key (`Authorization: Key …`), the paths the official SDK builds. */
export function onesignalClient(http: HttpClient, config: OnesignalConfig, apiKey: string) {
  const headers = { authorization: `Key ${apiKey}`, accept: 'application/json' };
  const userUrl = (aliasId: string) =>
    `${config.baseUrl ?? ONESIGNAL_API_HOST}/apps/${encodeURIComponent(config.appId)}/users/by/${encodeURIComponent(config.aliasLabel)}/${encodeURIComponent(aliasId)}`;
  return {
    /** The user with its identity (aliases) and subscriptions; 404 when there is none. */
    get: (aliasId: string) => http.request({ method: 'GET', url: userUrl(aliasId), headers }),
    /** Deletes the user with all its subscriptions and aliases. */
    delete: (aliasId: string) => http.request({ method: 'DELETE', url: userUrl(aliasId), headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<OnesignalConfig>, 'http' | 'config' | 'secrets'>) =>
  onesignalClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

const onesignalIdOf = (body: unknown) =>
  str((body as { identity?: { onesignal_id?: unknown } } | undefined)?.identity?.onesignal_id);

/** Looks the user up again: 404 is the proof. */
async function proveGone(
  ctx: DriverContext<OnesignalConfig>,
  check: (style: VendorStyle, response: HttpResponse, now: Date) => Outcome,
): Promise<Outcome> {
  const after = await clientFor(ctx).get(ctx.identifier);
  if (isSuccessStatus(after.status))
    return { kind: 'pending', status: 'PROCESSING', message: 'OneSignal still returns the user; checking again' };
  if (after.status !== 404) return check(style, after, ctx.now);
  return {
    kind: 'success',
    message: `OneSignal deleted the user (${ctx.config.aliasLabel}) with its subscriptions and aliases; a lookup now answers 404`,
    evidence: {
      verifiedGone: true,
      lookupAfterDelete: 'HTTP 404',
      ...(ctx.trackingId ? { onesignalId: ctx.trackingId } : {}),
    },
  };
}

/**
 * Look the user up by alias, delete it (with its subscriptions and aliases), then look again:
 * a 404 is the proof. When OneSignal still returns the user right after the delete, the
 * lookup is polled.
 */
export const onesignalDriver: Driver<OnesignalConfig> = {
  type: 'ONESIGNAL',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const found = await client.get(ctx.identifier);
    if (found.status === 404)
      return {
        kind: 'success',
        message: 'OneSignal has no user with this alias: nothing to delete',
        evidence: { userFound: false },
      };
    if (!isSuccessStatus(found.status)) return deletionFailure(style, found, ctx.now);
    const onesignalId = onesignalIdOf(jsonBody(found)) ?? ctx.identifier;
    const deleted = await client.delete(ctx.identifier);
    if (!isSuccessStatus(deleted.status) && deleted.status !== 404) return deletionFailure(style, deleted, ctx.now);
    const proof = await proveGone({ ...ctx, trackingId: onesignalId }, deletionFailure);
    if (proof.kind !== 'pending') return proof;
    return {
      kind: 'accepted',
      trackingId: onesignalId,
      status: 'PROCESSING',
      message: 'OneSignal accepted the deletion of the user',
    };
  },

  checkStatus: (ctx) => proveGone(ctx, statusFailure),

  async testConnection(ctx) {
    const ok = 'OneSignal accepted the REST API key';
    try {
      // A lookup of an alias no user has: OneSignal checks the key first, so 404 is a working key.
      const response = await clientFor(ctx).get('connection-test-0');
      return response.status === 404 ? { ok: true, message: ok } : connectionVerdict(style, response, ok);
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
