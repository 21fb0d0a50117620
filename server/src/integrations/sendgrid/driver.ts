import { SENDGRID_HOSTS, vendorBaseUrl, type SendgridConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { deletionFailure, statusFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** SendGrid errors: `{errors: [{field, message}]}`; 429 carries X-RateLimit-Reset (epoch seconds). */
const style: VendorStyle = {
  vendor: 'SendGrid',
  message: (body) => str((body as { errors?: { message?: unknown }[] } | undefined)?.errors?.[0]?.message),
};

/** SendGrid v3 Marketing Campaigns contacts with an API key (Bearer). */
export function sendgridClient(http: HttpClient, config: SendgridConfig, apiKey: string) {
  const base = `${vendorBaseUrl(config, SENDGRID_HOSTS)}/v3/marketing/contacts`;
  const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
  return {
    /** The contacts of these emails; 404 when none is found. The emails travel in the body. */
    searchEmails: (emails: string[]) =>
      http.request({
        method: 'POST',
        url: `${base}/search/emails`,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ emails }),
      }),
    deleteContacts: (ids: string[]) =>
      http.request({ method: 'DELETE', url: `${base}?${new URLSearchParams({ ids: ids.join(',') })}`, headers }),
    /** Status of a contacts job (imports, deletes). */
    job: (jobId: string) =>
      http.request({ method: 'GET', url: `${base}/imports/${encodeURIComponent(jobId)}`, headers }),
    count: () => http.request({ method: 'GET', url: `${base}/count`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<SendgridConfig>, 'http' | 'config' | 'secrets'>) =>
  sendgridClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

function contactIdOf(body: unknown, email: string): string | null {
  const result = (body as { result?: Record<string, { contact?: { id?: unknown } }> } | undefined)?.result ?? {};
  const entry = Object.entries(result).find(([key]) => key.toLowerCase() === email.toLowerCase())?.[1];
  return str(entry?.contact?.id) ?? null;
}

/** Search again: no contact for the email is the proof. */
async function verifyGone(ctx: DriverContext<SendgridConfig>, jobId: string): Promise<Outcome> {
  const after = await clientFor(ctx).searchEmails([ctx.identifier]);
  if (after.status === 404 || (isSuccessStatus(after.status) && !contactIdOf(jsonBody(after), ctx.identifier))) {
    return {
      kind: 'success',
      message: `SendGrid delete job ${jobId} finished; a search for the email finds no contact`,
      evidence: { sendgridJobId: jobId, verifiedGone: true, lookupAfterDelete: 'search/emails: HTTP 404' },
    };
  }
  if (!isSuccessStatus(after.status)) return statusFailure(style, after, ctx.now);
  return {
    kind: 'pending',
    status: 'PROCESSING',
    message: `SendGrid delete job ${jobId} finished but the contact is still found; checking again`,
  };
}

/**
 * Asynchronous: find the contact by email, delete it (SendGrid answers 202 with a job id),
 * poll the job, then search again: no contact is the proof.
 */
export const sendgridDriver: Driver<SendgridConfig> = {
  type: 'SENDGRID',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'minutes (SendGrid deletes contacts in a background job)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const found = await client.searchEmails([ctx.identifier]);
    if (found.status === 404)
      return {
        kind: 'success',
        message: 'SendGrid has no contact with this email: nothing to delete',
        evidence: { contactFound: false },
      };
    if (!isSuccessStatus(found.status)) return deletionFailure(style, found, ctx.now);
    const contactId = contactIdOf(jsonBody(found), ctx.identifier);
    if (!contactId)
      return {
        kind: 'success',
        message: 'SendGrid has no contact with this email: nothing to delete',
        evidence: { contactFound: false },
      };
    const deleted = await client.deleteContacts([contactId]);
    if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
    const jobId = str((jsonBody(deleted) as { job_id?: unknown } | undefined)?.job_id);
    if (!jobId) return { kind: 'failed', reason: 'SendGrid accepted the delete but returned no job_id' };
    return {
      kind: 'accepted',
      trackingId: jobId,
      status: 'PROCESSING',
      message: `SendGrid delete job ${jobId} started for contact ${contactId}`,
    };
  },

  async checkStatus(ctx) {
    const jobId = ctx.trackingId!;
    const response = await clientFor(ctx).job(jobId);
    if (!isSuccessStatus(response.status)) return statusFailure(style, response, ctx.now);
    const status = str((jsonBody(response) as { status?: unknown } | undefined)?.status) ?? '';
    if (status === 'completed') return verifyGone(ctx, jobId);
    if (status === 'failed' || status === 'errored')
      return { kind: 'failed', reason: `SendGrid delete job ${jobId} ${status}` };
    return { kind: 'pending', status: 'PROCESSING', message: `SendGrid delete job ${jobId} ${status || 'pending'}` };
  },

  testConnection: (ctx) =>
    testWith(style, () => clientFor(ctx).count(), 'SendGrid accepted the API key and it may read Marketing contacts'),
};
