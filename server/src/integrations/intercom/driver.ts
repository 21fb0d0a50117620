import { INTERCOM_API_VERSION, INTERCOM_HOSTS, vendorBaseUrl, type IntercomConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { collectPages, deleteThenConfirmGone, deletionFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Intercom errors: `{type: 'error.list', errors: [{code, message}]}`; 429 carries X-RateLimit-Reset (epoch seconds). */
const style: VendorStyle = {
  vendor: 'Intercom',
  message: (body) => {
    const first = (body as { errors?: { code?: unknown; message?: unknown }[] } | undefined)?.errors?.[0];
    return str(first?.message) ?? str(first?.code);
  },
};

/** Contacts per page of a search after the first (Intercom's maximum is 150). */
const SEARCH_PAGE_SIZE = 150;
/** Pages of a search read at most. */
const MAX_SEARCH_PAGES = 20;

/** Intercom contacts with an access token (Bearer), pinned to one API version. */
export function intercomClient(http: HttpClient, config: IntercomConfig, token: string) {
  const base = `${vendorBaseUrl(config, INTERCOM_HOSTS)}/contacts`;
  const headers = {
    authorization: `Bearer ${token}`,
    'intercom-version': INTERCOM_API_VERSION,
    accept: 'application/json',
  };
  return {
    /**
     * One page of the contacts whose email or external_id equals the identifier (the identifier
     * travels in the body); the next page is asked for with `pagination.starting_after`.
     */
    search: (field: 'email' | 'external_id', value: string, startingAfter?: string) =>
      http.request({
        method: 'POST',
        url: `${base}/search`,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: { field, operator: '=', value },
          ...(startingAfter ? { pagination: { per_page: SEARCH_PAGE_SIZE, starting_after: startingAfter } } : {}),
        }),
      }),
    find: (id: string) => http.request({ method: 'GET', url: `${base}/${encodeURIComponent(id)}`, headers }),
    del: (id: string) => http.request({ method: 'DELETE', url: `${base}/${encodeURIComponent(id)}`, headers }),
    listOne: () => http.request({ method: 'GET', url: `${base}?per_page=1`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<IntercomConfig>, 'http' | 'config' | 'secrets'>) =>
  intercomClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/** The tracking id of a search that found no one yet: the status check searches again. */
const SEARCH_AGAIN = 'search-again';
/** Intercom: a new contact may take "a few minutes" to become searchable. */
const SEARCH_AGAIN_AFTER_MS = 5 * 60_000;

type IntercomCtx = DriverContext<IntercomConfig>;

/** Every contact the search finds for the identifier (or the contact id itself), or why not. */
async function findContacts(ctx: IntercomCtx): Promise<string[] | Outcome> {
  if (ctx.config.identifierType === 'contact_id') return [ctx.identifier];
  const client = clientFor(ctx);
  // Several contacts (users and leads) can share an email: every page of the search.
  const identifierType = ctx.config.identifierType;
  return collectPages<string>(
    MAX_SEARCH_PAGES,
    `More than ${MAX_SEARCH_PAGES} pages of Intercom contacts match; delete them by contact id`,
    async (after) => {
      const response = await client.search(identifierType, ctx.identifier, after);
      if (!isSuccessStatus(response.status)) return { failure: deletionFailure(style, response, ctx.now) };
      const body = jsonBody(response) as
        { data?: { id?: unknown }[]; pages?: { next?: { starting_after?: unknown } | null } } | undefined;
      return {
        ids: (body?.data ?? []).map((c) => str(c.id)).filter((id): id is string => Boolean(id)),
        next: str(body?.pages?.next?.starting_after),
      };
    },
  );
}

/** Deletes each contact, then fetches each again: Intercom's 404 is the proof. */
async function deleteContacts(ctx: IntercomCtx, ids: string[], searches: number): Promise<Outcome> {
  const client = clientFor(ctx);
  const result = await deleteThenConfirmGone(style, ctx.now, ids, {
    del: client.del,
    get: client.find,
    noun: 'contact',
  });
  if ('outcome' in result) return result.outcome;
  const { deleted } = result;
  if (deleted.length === 0)
    return {
      kind: 'success',
      message:
        searches > 1
          ? `Intercom has no such contact: nothing to delete (searched twice, ${SEARCH_AGAIN_AFTER_MS / 60_000} minutes apart)`
          : 'Intercom has no such contact: nothing to delete',
      evidence: { contactsFound: 0, searches },
    };
  return {
    kind: 'success',
    message: `Deleted ${deleted.length} Intercom contact(s); fetching each now answers 404`,
    evidence: { contactsFound: deleted.length, contactIds: deleted, verifiedGone: true, lookupAfterDelete: 'HTTP 404' },
  };
}

/**
 * Find the contacts (search by email or external_id, or the contact id), delete each, then
 * fetch each again: Intercom's 404 is the proof. A search that finds no one is repeated a few
 * minutes later (a status check) before the person is called absent: Intercom's search may not
 * see a contact created minutes before.
 */
export const intercomDriver: Driver<IntercomConfig> = {
  type: 'INTERCOM',
  async: (config) => config.identifierType !== 'contact_id',
  canCancel: () => false,
  expectedCompletion: 'seconds (minutes when the first search finds no one)',

  async requestDeletion(ctx) {
    const ids = await findContacts(ctx);
    if (!Array.isArray(ids)) return ids;
    if (ids.length === 0 && ctx.config.identifierType !== 'contact_id')
      return {
        kind: 'accepted',
        trackingId: SEARCH_AGAIN,
        status: 'PENDING',
        pollAfterMs: SEARCH_AGAIN_AFTER_MS,
        message: `Intercom's search found no contact; a contact created minutes ago may not be searchable yet, so it searches again in ${SEARCH_AGAIN_AFTER_MS / 60_000} minutes`,
      };
    return deleteContacts(ctx, ids, 1);
  },

  async checkStatus(ctx) {
    const ids = await findContacts(ctx);
    if (!Array.isArray(ids)) return ids;
    return deleteContacts(ctx, ids, 2);
  },

  testConnection: (ctx) =>
    testWith(style, () => clientFor(ctx).listOne(), 'Intercom accepted the access token and it may read contacts'),
};
