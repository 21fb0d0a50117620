import { zendeskBaseUrl, type ZendeskConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { collectPages, deletionFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Zendesk errors are `{error: "..."}` or `{error: {title, message}}` or `{error, description}`. */
const style: VendorStyle = {
  vendor: 'Zendesk',
  message: (body) => {
    const b = body as { error?: unknown; description?: unknown } | undefined;
    const error = b?.error as { title?: unknown; message?: unknown } | string | undefined;
    if (typeof error === 'string') return str(b?.description) ? `${error}: ${b!.description as string}` : error;
    return str(error?.message) ?? str(error?.title);
  },
};

/** Zendesk Support API v2 with an admin's API token (Basic "{email}/token:{token}"), the paths node-zendesk builds. */
export function zendeskClient(http: HttpClient, config: ZendeskConfig, apiToken: string) {
  const base = `${zendeskBaseUrl(config)}/api/v2`;
  const headers = {
    authorization: `Basic ${Buffer.from(`${config.agentEmail}/token:${apiToken}`).toString('base64')}`,
    accept: 'application/json',
  };
  return {
    /** One page of Zendesk's user search (100 a page); the first as node-zendesk's `users.search` sends it. */
    searchByEmail: (email: string, page = 1) =>
      http.request({
        method: 'GET',
        url: `${base}/users/search.json?${new URLSearchParams({ query: `email:${email}`, ...(page > 1 ? { page: String(page) } : {}) })}`,
        headers,
      }),
    show: (id: string) => http.request({ method: 'GET', url: `${base}/users/${encodeURIComponent(id)}.json`, headers }),
    /** Soft delete: the user is deactivated and listed under deleted users. */
    softDelete: (id: string) =>
      http.request({ method: 'DELETE', url: `${base}/users/${encodeURIComponent(id)}.json`, headers }),
    /** Permanent delete (GDPR) of a soft-deleted user. */
    permanentlyDelete: (id: string) =>
      http.request({ method: 'DELETE', url: `${base}/deleted_users/${encodeURIComponent(id)}.json`, headers }),
    /** One cursor page (100) of deleted users, soft-deleted ones with their email, permanently deleted ones without. */
    listDeleted: (after?: string) =>
      http.request({
        method: 'GET',
        url: `${base}/deleted_users.json?${new URLSearchParams({ 'page[size]': '100', ...(after ? { 'page[after]': after } : {}) })}`,
        headers,
      }),
    showDeleted: (id: string) =>
      http.request({ method: 'GET', url: `${base}/deleted_users/${encodeURIComponent(id)}.json`, headers }),
    me: () => http.request({ method: 'GET', url: `${base}/users/me.json`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<ZendeskConfig>, 'http' | 'config' | 'secrets'>) =>
  zendeskClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/** Pages of search results read at most (Zendesk answers 100 a page). */
const MAX_SEARCH_PAGES = 20;

/** Pages of deleted users read at most (100 a page). */
const MAX_DELETED_PAGES = 50;

/**
 * The users of a search page whose email is the identifier (ignoring case, as email
 * addresses are compared). Zendesk's search is not a lookup: `email:jo@acme.co` also finds
 * jo@acme.com (a term matches the start of a longer value), and a user found that way must
 * never be deleted.
 */
const matchingIds = (body: unknown, email: string, key: 'users' | 'deleted_users' = 'users') =>
  ((body as Record<string, { id?: unknown; email?: unknown }[] | undefined> | undefined)?.[key] ?? [])
    .filter((u) => typeof u.email === 'string' && u.email.toLowerCase() === email.toLowerCase())
    .map((u) => (typeof u.id === 'number' || typeof u.id === 'string' ? String(u.id) : ''))
    .filter(Boolean);

/**
 * Synchronous: find the user (by email, or by id), delete it, then permanently delete it
 * (Zendesk's GDPR erasure, allowed only after the soft delete), then look in deleted users
 * again: a 404 there is the proof.
 */
export const zendeskDriver: Driver<ZendeskConfig> = {
  type: 'ZENDESK',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds (Zendesk scrubs the permanently deleted user from its systems afterwards)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    let ids: string[];
    if (ctx.config.identifierType === 'email') {
      const found = await collectPages<number>(
        MAX_SEARCH_PAGES,
        `Zendesk's search for this email returned more than ${MAX_SEARCH_PAGES} pages of users; delete by user id instead`,
        async (page = 1) => {
          const response = await client.searchByEmail(ctx.identifier, page);
          if (!isSuccessStatus(response.status)) return { failure: deletionFailure(style, response, ctx.now) };
          const body = jsonBody(response) as { next_page?: unknown } | undefined;
          return { ids: matchingIds(body, ctx.identifier), next: body?.next_page ? page + 1 : undefined };
        },
      );
      if (!Array.isArray(found)) return found;
      // The search finds active users only; a user soft-deleted earlier keeps their data until
      // permanently deleted, so deleted users with this email are erased too.
      const deleted = await collectPages<string>(
        MAX_DELETED_PAGES,
        `Zendesk lists more than ${MAX_DELETED_PAGES * 100} deleted users to look through; delete by user id instead`,
        async (after) => {
          const response = await client.listDeleted(after);
          if (!isSuccessStatus(response.status)) return { failure: deletionFailure(style, response, ctx.now) };
          const body = jsonBody(response) as { meta?: { has_more?: unknown; after_cursor?: unknown } } | undefined;
          const next = body?.meta?.has_more === true ? str(body.meta.after_cursor) : undefined;
          return { ids: matchingIds(body, ctx.identifier, 'deleted_users'), next };
        },
        found,
      );
      if (!Array.isArray(deleted)) return deleted;
      ids = deleted;
    } else {
      ids = [ctx.identifier];
    }
    const deletedIds: string[] = [];
    for (const id of ids) {
      const soft = await client.softDelete(id);
      // 404: already soft-deleted (a retry of this step) or no such user; the permanent delete decides.
      if (!isSuccessStatus(soft.status) && soft.status !== 404) return deletionFailure(style, soft, ctx.now);
      const permanent = await client.permanentlyDelete(id);
      if (permanent.status === 404) continue; // not in deleted users: nothing (left) to erase
      if (!isSuccessStatus(permanent.status)) return deletionFailure(style, permanent, ctx.now);
      deletedIds.push(id);
    }
    if (deletedIds.length === 0)
      return { kind: 'success', message: 'Zendesk has no such user: nothing to delete', evidence: { usersFound: 0 } };
    const proof: Record<string, string> = {};
    for (const id of deletedIds) {
      const after = await client.showDeleted(id);
      if (isSuccessStatus(after.status))
        return {
          kind: 'retry',
          reason: `Zendesk still lists user ${id} among deleted users after the permanent delete`,
        };
      if (after.status !== 404) return deletionFailure(style, after, ctx.now);
      proof[id] = 'deleted_users: HTTP 404';
    }
    return {
      kind: 'success',
      message: `Deleted and permanently deleted ${deletedIds.length} Zendesk user(s)`,
      evidence: { usersFound: deletedIds.length, userIds: deletedIds, verifiedGone: true, lookupAfterDelete: proof },
    };
  },

  testConnection: (ctx) => testWith(style, () => clientFor(ctx).me(), 'Zendesk accepted the API token'),
};
