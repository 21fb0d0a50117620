import { HUBSPOT_API_HOST, type HubspotConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient, type HttpResponse } from '../runtime/http-client';
import { deletionFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext } from '../types';
import { credential, jsonBody, retryAfterMs } from '../runtime/vendor-http';

/**
 * HubSpot's 429 names its policy: the secondly / ten-secondly windows last
 * X-HubSpot-RateLimit-Interval-Milliseconds; the daily limit resets at midnight in the
 * account's time zone, which the answer does not say. So a DAILY limit is tried again at the
 * top of the next hour (every time zone's midnight is within an hour of one): the deletion goes
 * out within an hour of the reset, not up to a day after it.
 */
export function hubspotWaitMs(response: HttpResponse, now: number): number | undefined {
  const policy = (jsonBody(response) as { policyName?: unknown } | undefined)?.policyName;
  if (policy === 'DAILY') {
    const nextHour = new Date(now);
    nextHour.setUTCMinutes(60, 0, 0);
    return nextHour.getTime() - now;
  }
  const interval = Number(response.headers['x-hubspot-ratelimit-interval-milliseconds']);
  return response.headers['retry-after']
    ? retryAfterMs(response, 1_000, now)
    : Number.isFinite(interval) && interval > 0
      ? interval
      : undefined;
}

const style: VendorStyle = {
  vendor: 'HubSpot',
  message: (body) => str((body as { message?: unknown } | undefined)?.message),
  waitMs: hubspotWaitMs,
};

/** HubSpot CRM contacts with a private app access token (Bearer, scope crm.objects.contacts.write). */
export function hubspotClient(http: HttpClient, config: HubspotConfig, token: string) {
  const base = `${config.baseUrl ?? HUBSPOT_API_HOST}/crm/v3/objects/contacts`;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const byEmail = config.identifierType === 'email';
  return {
    /** Permanently deletes the contact and its content (GDPR delete); 204 even if there is none. */
    gdprDelete: (identifier: string) =>
      http.request({
        method: 'POST',
        url: `${base}/gdpr-delete`,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ objectId: identifier, ...(byEmail ? { idProperty: 'email' } : {}) }),
      }),
    getContact: (identifier: string) =>
      http.request({
        method: 'GET',
        url: `${base}/${encodeURIComponent(identifier)}?${new URLSearchParams({ archived: 'false', ...(byEmail ? { idProperty: 'email' } : {}) })}`,
        headers,
      }),
    listOne: () => http.request({ method: 'GET', url: `${base}?limit=1&archived=false`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<HubspotConfig>, 'http' | 'config' | 'secrets'>) =>
  hubspotClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/**
 * Synchronous: look the contact up, GDPR-delete it (HubSpot also blocklists the email so it
 * cannot be re-created by a form), then look it up again: a 404 is the proof.
 */
export const hubspotDriver: Driver<HubspotConfig> = {
  type: 'HUBSPOT',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const before = await client.getContact(ctx.identifier);
    if (before.status !== 404 && !isSuccessStatus(before.status)) return deletionFailure(style, before, ctx.now);
    const contactId =
      before.status === 404 ? null : (str((jsonBody(before) as { id?: unknown } | undefined)?.id) ?? null);
    const deleted = await client.gdprDelete(ctx.identifier);
    if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
    const after = await client.getContact(ctx.identifier);
    if (isSuccessStatus(after.status))
      return { kind: 'retry', reason: 'HubSpot still returns the contact after the GDPR delete' };
    if (after.status !== 404) return deletionFailure(style, after, ctx.now);
    return {
      kind: 'success',
      message: contactId
        ? `HubSpot contact ${contactId} permanently deleted (GDPR delete); a lookup now answers 404`
        : 'HubSpot has no such contact; the GDPR delete was sent anyway (HubSpot blocklists the email)',
      evidence: { contactFound: contactId !== null, contactId, verifiedGone: true, lookupAfterDelete: 'HTTP 404' },
    };
  },

  testConnection: (ctx) =>
    testWith(style, () => clientFor(ctx).listOne(), 'HubSpot accepted the access token and it may read contacts'),
};
