import { INTERCOM_API_VERSION, INTERCOM_HOSTS, vendorBaseUrl, type IntercomConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { collectPages, deletionFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext } from '../types';
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

/**
 * Synchronous: find the contacts (search by email or external_id, or the contact id), delete
 * each, then fetch each again: Intercom's 404 is the proof.
 */
export const intercomDriver: Driver<IntercomConfig> = {
  type: 'INTERCOM',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    let ids: string[];
    if (ctx.config.identifierType === 'contact_id') {
      ids = [ctx.identifier];
    } else {
      // Several contacts (users and leads) can share an email: every page of the search.
      const identifierType = ctx.config.identifierType;
      const found = await collectPages<string>(
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
      if (!Array.isArray(found)) return found;
      ids = found;
    }
    const deleted: string[] = [];
    for (const id of ids) {
      const response = await client.del(id);
      if (response.status === 404) continue;
      if (!isSuccessStatus(response.status)) return deletionFailure(style, response, ctx.now);
      deleted.push(id);
    }
    if (deleted.length === 0)
      return {
        kind: 'success',
        message: 'Intercom has no such contact: nothing to delete',
        evidence: { contactsFound: 0 },
      };
    for (const id of deleted) {
      const after = await client.find(id);
      if (isSuccessStatus(after.status))
        return { kind: 'retry', reason: `Intercom still returns contact ${id} after the delete` };
      if (after.status !== 404) return deletionFailure(style, after, ctx.now);
    }
    return {
      kind: 'success',
      message: `Deleted ${deleted.length} Intercom contact(s); fetching each now answers 404`,
      evidence: {
        contactsFound: deleted.length,
        contactIds: deleted,
        verifiedGone: true,
        lookupAfterDelete: 'HTTP 404',
      },
    };
  },

  testConnection: (ctx) =>
    testWith(style, () => clientFor(ctx).listOne(), 'Intercom accepted the access token and it may read contacts'),
};
