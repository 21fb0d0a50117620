import { freshdeskBaseUrl, type FreshdeskConfig } from '@shared/integrations/freshdesk';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { deletionFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Freshdesk errors: `{code, message}` (401, 403, 404) or `{description, errors: [{field, message, code}]}` (400). */
const style: VendorStyle = {
  vendor: 'Freshdesk',
  message: (body) => {
    const b = body as { message?: unknown; description?: unknown; errors?: { message?: unknown }[] } | undefined;
    const first = str(b?.errors?.[0]?.message);
    return str(b?.message) ?? (first ? `${str(b?.description) ?? 'Validation failed'}: ${first}` : str(b?.description));
  },
};

/** Contacts one email filter page holds at most (Freshdesk pages are at most 100). */
const PER_PAGE = 100;

/** Freshdesk API v2 with an agent's API key (Basic "{api key}:X"). */
export function freshdeskClient(http: HttpClient, config: FreshdeskConfig, apiKey: string) {
  const base = `${freshdeskBaseUrl(config)}/api/v2`;
  const headers = {
    authorization: `Basic ${Buffer.from(`${apiKey}:X`).toString('base64')}`,
    accept: 'application/json',
  };
  return {
    /** The contacts with this email: active ones, or (`deleted`) soft-deleted ones. */
    listByEmail: (email: string, deleted: boolean) =>
      http.request({
        method: 'GET',
        url: `${base}/contacts?${new URLSearchParams({ email, ...(deleted ? { state: 'deleted' } : {}), per_page: String(PER_PAGE) })}`,
        headers,
      }),
    view: (id: string) => http.request({ method: 'GET', url: `${base}/contacts/${encodeURIComponent(id)}`, headers }),
    /** Permanent deletion with the contact's tickets; `force` allows it on a contact not soft-deleted first. */
    hardDelete: (id: string) =>
      http.request({
        method: 'DELETE',
        url: `${base}/contacts/${encodeURIComponent(id)}/hard_delete?force=true`,
        headers,
      }),
    /** One contact of the first page: a read-only check of the key. */
    listOne: () => http.request({ method: 'GET', url: `${base}/contacts?per_page=1`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<FreshdeskConfig>, 'http' | 'config' | 'secrets'>) =>
  freshdeskClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/** The contacts of a list whose primary email is the identifier (ignoring case); another address is never taken for it. */
const matchingIds = (body: unknown, email: string): string[] =>
  (Array.isArray(body) ? (body as { id?: unknown; email?: unknown }[]) : [])
    .filter((c) => typeof c.email === 'string' && c.email.toLowerCase() === email.toLowerCase())
    .map((c) => (typeof c.id === 'number' || typeof c.id === 'string' ? String(c.id) : ''))
    .filter(Boolean);

/** The contact ids to erase: by email, the active and the soft-deleted contacts with it; or the id itself. */
async function contactIds(ctx: DriverContext<FreshdeskConfig>): Promise<string[] | Outcome> {
  if (ctx.config.identifierType === 'contact_id') {
    if (!/^\d{1,20}$/.test(ctx.identifier.trim()))
      return { kind: 'failed', reason: 'The identifier is not a Freshdesk contact id (digits)' };
    return [ctx.identifier.trim()];
  }
  const ids: string[] = [];
  for (const deleted of [false, true]) {
    const response = await clientFor(ctx).listByEmail(ctx.identifier, deleted);
    if (!isSuccessStatus(response.status)) return deletionFailure(style, response, ctx.now);
    const body = jsonBody(response);
    // A full page could hide more contacts behind it; an email names a handful at most.
    if (Array.isArray(body) && body.length >= PER_PAGE)
      return {
        kind: 'failed',
        reason: `Freshdesk lists ${PER_PAGE} or more contacts for this email; delete by contact id instead`,
      };
    for (const id of matchingIds(body, ctx.identifier)) if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * Synchronous: find the contacts (by email, active and soft-deleted, or by id), hard-delete
 * each (`force=true`: Freshdesk's permanent deletion with the contact's tickets, for GDPR),
 * then view each again: a 404 is the proof.
 */
export const freshdeskDriver: Driver<FreshdeskConfig> = {
  type: 'FRESHDESK',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const ids = await contactIds(ctx);
    if (!Array.isArray(ids)) return ids;
    const deletedIds: string[] = [];
    for (const id of ids) {
      const deleted = await client.hardDelete(id);
      if (deleted.status === 404) continue; // no such contact (or erased by an earlier attempt)
      if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
      deletedIds.push(id);
    }
    if (deletedIds.length === 0)
      return {
        kind: 'success',
        message: 'Freshdesk has no such contact: nothing to delete',
        evidence: { contactsFound: 0 },
      };
    const proof: Record<string, string> = {};
    for (const id of deletedIds) {
      const after = await client.view(id);
      if (isSuccessStatus(after.status))
        return { kind: 'retry', reason: `Freshdesk still shows contact ${id} after the hard delete` };
      if (after.status !== 404) return deletionFailure(style, after, ctx.now);
      proof[id] = 'HTTP 404';
    }
    return {
      kind: 'success',
      message: `Hard-deleted ${deletedIds.length} Freshdesk contact(s) with their tickets`,
      evidence: {
        contactsFound: deletedIds.length,
        contactIds: deletedIds,
        verifiedGone: true,
        lookupAfterDelete: proof,
      },
    };
  },

  testConnection: (ctx) => testWith(style, () => clientFor(ctx).listOne(), 'Freshdesk accepted the API key'),
};
