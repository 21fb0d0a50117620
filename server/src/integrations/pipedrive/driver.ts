import { PIPEDRIVE_API_HOST, type PipedriveConfig } from '@shared/integrations/pipedrive';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { collectPages, deletionFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Pipedrive errors: `{success: false, error, error_info}`; a 429 carries x-ratelimit-reset (seconds) and Retry-After. */
const style: VendorStyle = {
  vendor: 'Pipedrive',
  message: (body) => str((body as { error?: unknown } | undefined)?.error),
};

/** Persons one search page holds (Pipedrive allows up to 500). */
const PAGE_SIZE = 100;
/** Search pages read at most. */
const MAX_PAGES = 10;

/** Pipedrive API v2 with an API token (the `x-api-token` header the official SDK sends). */
export function pipedriveClient(http: HttpClient, config: PipedriveConfig, apiToken: string) {
  const base = `${config.baseUrl ?? PIPEDRIVE_API_HOST}/api/v2`;
  const headers = { 'x-api-token': apiToken, accept: 'application/json' };
  return {
    /** Persons whose email is exactly the term (Pipedrive: "not case sensitive"), one cursor page. */
    searchByEmail: (email: string, cursor?: string) =>
      http.request({
        method: 'GET',
        url: `${base}/persons/search?${new URLSearchParams({ term: email, fields: 'email', exact_match: 'true', limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) })}`,
        headers,
      }),
    get: (id: string) => http.request({ method: 'GET', url: `${base}/persons/${encodeURIComponent(id)}`, headers }),
    /** Marks the person deleted; Pipedrive deletes it permanently 30 days later. */
    delete: (id: string) =>
      http.request({ method: 'DELETE', url: `${base}/persons/${encodeURIComponent(id)}`, headers }),
    listOne: () => http.request({ method: 'GET', url: `${base}/persons?limit=1`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<PipedriveConfig>, 'http' | 'config' | 'secrets'>) =>
  pipedriveClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

interface SearchBody {
  data?: { items?: { item?: { id?: unknown; emails?: unknown } }[] };
  additional_data?: { next_cursor?: unknown };
}

/** The persons of a search page one of whose emails is the identifier (ignoring case). */
const matchingIds = (body: SearchBody | undefined, email: string): string[] =>
  (body?.data?.items ?? [])
    .map((entry) => entry.item)
    .filter(
      (item) =>
        Array.isArray(item?.emails) &&
        item.emails.some((e) => typeof e === 'string' && e.toLowerCase() === email.toLowerCase()),
    )
    .map((item) => (typeof item?.id === 'number' ? String(item.id) : ''))
    .filter(Boolean);

async function findPersons(ctx: DriverContext<PipedriveConfig>): Promise<string[] | Outcome> {
  if (ctx.config.identifierType === 'person_id') {
    if (!/^\d{1,15}$/.test(ctx.identifier.trim()))
      return { kind: 'failed', reason: 'The identifier is not a Pipedrive person id (digits)' };
    return [ctx.identifier.trim()];
  }
  const client = clientFor(ctx);
  return collectPages<string>(
    MAX_PAGES,
    `Pipedrive finds more than ${MAX_PAGES * PAGE_SIZE} persons with this email; delete by person id instead`,
    async (cursor) => {
      const response = await client.searchByEmail(ctx.identifier, cursor);
      if (!isSuccessStatus(response.status)) return { failure: deletionFailure(style, response, ctx.now) };
      const body = jsonBody(response) as SearchBody | undefined;
      return { ids: matchingIds(body, ctx.identifier), next: str(body?.additional_data?.next_cursor) };
    },
  );
}

/** A deleted person: 404, `is_deleted: true` (marked, purged by Pipedrive within 30 days), or gone from the search. */
const isDeleted = (status: number, body: unknown) =>
  status === 404 || (body as { data?: { is_deleted?: unknown } } | undefined)?.data?.is_deleted === true;

/**
 * Synchronous: find the persons (exact email search, or the id), delete each, then fetch each
 * again: 404 or `is_deleted` is the proof. Pipedrive keeps a deleted person 30 days before it
 * deletes it permanently (said in the outcome).
 */
export const pipedriveDriver: Driver<PipedriveConfig> = {
  type: 'PIPEDRIVE',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds (Pipedrive deletes the person permanently 30 days later)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const ids = await findPersons(ctx);
    if (!Array.isArray(ids)) return ids;
    const deletedIds: string[] = [];
    for (const id of ids) {
      const deleted = await client.delete(id);
      if (deleted.status === 404 || deleted.status === 410) continue; // no such person, or deleted already
      if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
      deletedIds.push(id);
    }
    if (deletedIds.length === 0)
      return {
        kind: 'success',
        message: 'Pipedrive has no such person: nothing to delete',
        evidence: { personsFound: 0 },
      };
    const proof: Record<string, string> = {};
    for (const id of deletedIds) {
      const after = await client.get(id);
      if (after.status !== 404 && !isSuccessStatus(after.status)) return deletionFailure(style, after, ctx.now);
      if (!isDeleted(after.status, jsonBody(after)))
        return { kind: 'retry', reason: `Pipedrive still shows person ${id} as not deleted` };
      proof[id] = after.status === 404 ? 'HTTP 404' : 'is_deleted: true';
    }
    return {
      kind: 'success',
      message: `Deleted ${deletedIds.length} Pipedrive person(s); Pipedrive removes them permanently after 30 days`,
      evidence: {
        personsFound: deletedIds.length,
        personIds: deletedIds,
        verifiedGone: true,
        lookupAfterDelete: proof,
      },
    };
  },

  testConnection: (ctx) => testWith(style, () => clientFor(ctx).listOne(), 'Pipedrive accepted the API token'),
};
