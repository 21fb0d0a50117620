import { createHash } from 'node:crypto';
import { mailchimpDataCenter, type MailchimpConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { deletionFailure, str, testWith, type VendorStyle } from '../saas';
import { PermanentError, type Driver, type DriverContext } from '../types';
import { credential } from '../runtime/vendor-http';

/** Mailchimp errors are problem documents: `{type, title, status, detail, instance}`. */
const style: VendorStyle = {
  vendor: 'Mailchimp',
  message: (body) => {
    const b = body as { title?: unknown; detail?: unknown } | undefined;
    const title = str(b?.title);
    const detail = str(b?.detail);
    return title && detail ? `${title}: ${detail}` : (title ?? detail);
  },
  fallbackWaitMs: 5_000,
};

/** Mailchimp keys a list member by the MD5 of its lowercased email. */
export const subscriberHash = (email: string) => createHash('md5').update(email.trim().toLowerCase()).digest('hex');

/** Mailchimp Marketing API 3.0 with an API key (HTTP Basic, any user name), on the key's data center. */
export function mailchimpClient(http: HttpClient, config: MailchimpConfig, apiKey: string) {
  const dc = mailchimpDataCenter(apiKey);
  if (!config.baseUrl && !dc)
    throw new PermanentError('The Mailchimp API key does not end in its data center (such as -us6)');
  const base = `${config.baseUrl ?? `https://${dc}.api.mailchimp.com`}/3.0/lists/${encodeURIComponent(config.listId)}`;
  const headers = {
    authorization: `Basic ${Buffer.from(`user:${apiKey}`).toString('base64')}`,
    accept: 'application/json',
  };
  return {
    getMember: (email: string) =>
      http.request({ method: 'GET', url: `${base}/members/${subscriberHash(email)}`, headers }),
    /** Permanently deletes the member and its personal data; the email cannot be re-imported. */
    deletePermanent: (email: string) =>
      http.request({
        method: 'POST',
        url: `${base}/members/${subscriberHash(email)}/actions/delete-permanent`,
        headers,
      }),
    getList: () => http.request({ method: 'GET', url: base, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<MailchimpConfig>, 'http' | 'config' | 'secrets'>) =>
  mailchimpClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/**
 * Synchronous: look the member up, permanently delete it, then look again: Mailchimp's 404 is
 * the proof. No member is a success with `memberFound: false`.
 */
export const mailchimpDriver: Driver<MailchimpConfig> = {
  type: 'MAILCHIMP',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const before = await client.getMember(ctx.identifier);
    if (before.status === 404)
      return {
        kind: 'success',
        message: 'This Mailchimp audience has no such member: nothing to delete',
        evidence: { memberFound: false },
      };
    if (!isSuccessStatus(before.status)) return deletionFailure(style, before, ctx.now);
    const deleted = await client.deletePermanent(ctx.identifier);
    // 404: deleted meanwhile (a retry of this step); the lookup below decides.
    if (!isSuccessStatus(deleted.status) && deleted.status !== 404) return deletionFailure(style, deleted, ctx.now);
    const after = await client.getMember(ctx.identifier);
    if (isSuccessStatus(after.status))
      return { kind: 'retry', reason: 'Mailchimp still returns the member after the permanent delete' };
    if (after.status !== 404) return deletionFailure(style, after, ctx.now);
    return {
      kind: 'success',
      message: `Permanently deleted the member from Mailchimp audience ${ctx.config.listId}; a lookup now answers 404`,
      evidence: {
        memberFound: true,
        listId: ctx.config.listId,
        subscriberHash: subscriberHash(ctx.identifier),
        verifiedGone: true,
        lookupAfterDelete: 'HTTP 404',
      },
    };
  },

  testConnection: (ctx) =>
    testWith(style, () => clientFor(ctx).getList(), 'Mailchimp accepted the API key and the audience exists'),
};
