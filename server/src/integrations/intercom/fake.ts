import { randomBytes } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface IntercomContact {
  type: 'contact';
  id: string;
  workspace_id: string;
  external_id: string | null;
  role: 'user' | 'lead';
  email: string | null;
  created_at: number;
  updated_at: number;
}

export interface IntercomFakeState {
  tokens: Set<string>;
  contacts: Map<string, IntercomContact>;
  /** The next N requests are answered 429 with X-RateLimit-Reset. */
  throttleNext: number;
  /** Seconds until the rate-limit window resets. */
  resetInSeconds: number;
  /** Contacts on a search page when the request names no `pagination.per_page` (Intercom: 50). */
  perPage: number;
  /** How long a new contact stays out of search results ("This delay can take a few minutes"). */
  searchLagMs: number;
}

const errorList = (status: number, code: string, message: string) => ({
  status,
  body: { type: 'error.list', request_id: randomBytes(8).toString('hex'), errors: [{ code, message }] },
});

/**
 * Intercom contacts API (2.x): POST /contacts/search {query: {field, operator, value}} →
 * {type: 'list', data, total_count, pages}, GET /contacts/{id}, DELETE /contacts/{id} →
 * {id, external_id, type: 'contact', deleted: true}, GET /contacts?per_page=. Bearer token. A new
 * contact joins search results only after `searchLagMs`, as Intercom warns it may.
 */
export async function startIntercomFake(): Promise<
  FakeVendor<IntercomFakeState> & { addContact(email: string, externalId?: string): IntercomContact }
> {
  const state: IntercomFakeState = {
    tokens: new Set(),
    contacts: new Map(),
    throttleNext: 0,
    resetInSeconds: 9,
    perPage: 50,
    searchLagMs: 0,
  };
  /** When each contact became searchable (created_at has whole seconds only). */
  const searchableAt = new Map<string, number>();
  /** One page of `all` after the contact `startingAfter` names; `pages.next` names the next one (CursorPages). */
  const list = (all: IntercomContact[], perPage = state.perPage, startingAfter?: string) => {
    const from = startingAfter ? all.findIndex((c) => c.id === startingAfter) + 1 : 0;
    const data = all.slice(from, from + perPage);
    const more = from + perPage < all.length;
    return {
      type: 'list',
      data,
      total_count: all.length,
      pages: {
        type: 'pages',
        page: Math.floor(from / perPage) + 1,
        per_page: perPage,
        total_pages: Math.ceil(all.length / perPage),
        ...(more ? { next: { per_page: perPage, starting_after: data.at(-1)!.id } } : {}),
      },
    };
  };
  const server = await startFakeServer((call) => {
    const token = bearerOf(call);
    if (!token || !state.tokens.has(token)) return errorList(401, 'unauthorized', 'Access Token Invalid');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      const reset = Math.floor(call.at / 1000) + state.resetInSeconds;
      return {
        ...errorList(429, 'rate_limit_exceeded', 'Rate Limit Exceeded'),
        headers: { 'x-ratelimit-limit': '10000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      };
    }
    if (call.path === '/contacts/search' && call.method === 'POST') {
      const query = (jsonOf(call) as { query?: { field?: unknown; operator?: unknown; value?: unknown } } | undefined)
        ?.query;
      if (!query || typeof query.field !== 'string' || typeof query.operator !== 'string' || !('value' in query))
        return errorList(400, 'parameter_invalid', 'query must have field, operator and value');
      if (query.operator !== '=')
        return errorList(400, 'parameter_invalid', `operator ${String(query.operator)} is not supported by this fake`);
      const field = query.field as keyof IntercomContact;
      const pagination = (jsonOf(call) as { pagination?: { per_page?: unknown; starting_after?: unknown } }).pagination;
      const perPage = typeof pagination?.per_page === 'number' ? pagination.per_page : state.perPage;
      if (perPage < 1 || perPage > 150) return errorList(400, 'parameter_invalid', 'per_page must be 1 to 150');
      const after = typeof pagination?.starting_after === 'string' ? pagination.starting_after : undefined;
      const matching = [...state.contacts.values()].filter(
        (c) => c[field] === query.value && (searchableAt.get(c.id) ?? 0) <= call.at,
      );
      return { status: 200, body: list(matching, perPage, after) };
    }
    if (call.path === '/contacts' && call.method === 'GET')
      return {
        status: 200,
        body: list([...state.contacts.values()], Number(call.query.get('per_page') ?? 50)),
      };
    const one = /^\/contacts\/([^/]+)$/.exec(call.path);
    if (one) {
      const contact = state.contacts.get(decodeURIComponent(one[1]!));
      if (!contact) return errorList(404, 'not_found', 'User Not Found');
      if (call.method === 'GET') return { status: 200, body: contact };
      if (call.method === 'DELETE') {
        state.contacts.delete(contact.id);
        return {
          status: 200,
          body: { id: contact.id, external_id: contact.external_id, type: 'contact', deleted: true },
        };
      }
    }
    return errorList(404, 'not_found', 'Resource Not Found');
  });
  return {
    ...server,
    state,
    addContact(email, externalId) {
      const now = Math.floor(Date.now() / 1000);
      const contact: IntercomContact = {
        type: 'contact',
        id: randomBytes(12).toString('hex'),
        workspace_id: 'ecahpwf5',
        external_id: externalId ?? null,
        role: 'user',
        email,
        created_at: now,
        updated_at: now,
      };
      state.contacts.set(contact.id, contact);
      searchableAt.set(contact.id, Date.now() + state.searchLagMs);
      return contact;
    },
  };
}
