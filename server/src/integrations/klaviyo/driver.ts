import { KLAVIYO_API_HOST, KLAVIYO_REVISION, type KlaviyoConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { deletionFailure, statusFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Klaviyo errors are JSON:API error objects: `{errors: [{status, code, title, detail}]}`; 429 carries Retry-After. */
const style: VendorStyle = {
  vendor: 'Klaviyo',
  message: (body) => {
    const first = (body as { errors?: { detail?: unknown; title?: unknown }[] } | undefined)?.errors?.[0];
    return str(first?.detail) ?? str(first?.title);
  },
};

/** Klaviyo API with a private API key ("Klaviyo-API-Key …"), pinned to one revision. */
export function klaviyoClient(http: HttpClient, config: KlaviyoConfig, apiKey: string) {
  const base = `${config.baseUrl ?? KLAVIYO_API_HOST}/api`;
  const headers = {
    authorization: `Klaviyo-API-Key ${apiKey}`,
    revision: KLAVIYO_REVISION,
    accept: 'application/vnd.api+json',
  };
  // Klaviyo's document requires `attributes` in the profile even when the id names it.
  const profile = (identifier: string) =>
    config.identifierType === 'email'
      ? { type: 'profile', attributes: { email: identifier } }
      : { type: 'profile', id: identifier, attributes: {} };
  return {
    /** Queues the deletion of the profile and all its data; 202 without a body. */
    requestDeletion: (identifier: string) =>
      http.request({
        method: 'POST',
        url: `${base}/data-privacy-deletion-jobs`,
        headers: { ...headers, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({
          data: { type: 'data-privacy-deletion-job', attributes: { profile: { data: profile(identifier) } } },
        }),
      }),
    /** Profiles with this email (an empty list when none), or the profile by id (404 when none). */
    lookup: (identifier: string) =>
      config.identifierType === 'email'
        ? http.request({
            method: 'GET',
            url: `${base}/profiles?${new URLSearchParams({ filter: `equals(email,"${identifier.replace(/["\\]/g, '\\$&')}")` })}`,
            headers,
          })
        : http.request({ method: 'GET', url: `${base}/profiles/${encodeURIComponent(identifier)}`, headers }),
    listOne: () =>
      http.request({ method: 'GET', url: `${base}/profiles?${new URLSearchParams({ 'page[size]': '1' })}`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<KlaviyoConfig>, 'http' | 'config' | 'secrets'>) =>
  klaviyoClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

const profileIdsOf = (body: unknown): string[] => {
  const data = (body as { data?: unknown } | undefined)?.data;
  const list = Array.isArray(data) ? data : data ? [data] : [];
  return list.map((p) => str((p as { id?: unknown }).id)).filter((id): id is string => Boolean(id));
};

/** The lookup proves the deletion once it finds no profile. */
async function lookupOutcome(ctx: DriverContext<KlaviyoConfig>): Promise<Outcome> {
  const after = await clientFor(ctx).lookup(ctx.identifier);
  if (after.status !== 404 && !isSuccessStatus(after.status)) return statusFailure(style, after, ctx.now);
  const remaining = after.status === 404 ? [] : profileIdsOf(jsonBody(after));
  if (remaining.length > 0)
    return {
      kind: 'pending',
      status: 'PROCESSING',
      message: `Klaviyo still returns profile ${remaining.join(', ')}; the deletion job is running`,
    };
  return {
    kind: 'success',
    message: 'Klaviyo deleted the profile; a lookup now finds none',
    evidence: { verifiedGone: true, lookupAfterDelete: after.status === 404 ? 'HTTP 404' : 'no profiles' },
  };
}

/**
 * Look the profile up, request a data-privacy deletion job (202; Klaviyo offers no job status),
 * then poll the lookup until no profile is left: that is the proof.
 */
export const klaviyoDriver: Driver<KlaviyoConfig> = {
  type: 'KLAVIYO',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'minutes to hours (Klaviyo runs deletion jobs in the background)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const found = await client.lookup(ctx.identifier);
    if (found.status !== 404 && !isSuccessStatus(found.status)) return deletionFailure(style, found, ctx.now);
    const ids = found.status === 404 ? [] : profileIdsOf(jsonBody(found));
    if (ids.length === 0)
      return {
        kind: 'success',
        message: 'Klaviyo has no such profile: nothing to delete',
        evidence: { profileFound: false },
      };
    const job = await client.requestDeletion(ctx.identifier);
    if (!isSuccessStatus(job.status)) return deletionFailure(style, job, ctx.now);
    return {
      kind: 'accepted',
      trackingId: ids.join(','),
      status: 'PROCESSING',
      message: `Klaviyo queued a data-privacy deletion job for profile ${ids.join(', ')}`,
    };
  },

  checkStatus: (ctx) => lookupOutcome(ctx),

  testConnection: (ctx) =>
    testWith(style, () => clientFor(ctx).listOne(), 'Klaviyo accepted the private API key and it may read profiles'),
};
