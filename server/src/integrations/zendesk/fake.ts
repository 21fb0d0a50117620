import { startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface ZendeskUser {
  id: number;
  url: string;
  name: string;
  email: string;
  active: boolean;
  role: 'end-user' | 'agent' | 'admin';
  created_at: string;
}

export interface ZendeskFakeState {
  /** "{email}/token:{token}" pairs Zendesk accepts. */
  credentials: Set<string>;
  users: Map<number, ZendeskUser>;
  /** Soft-deleted users, until permanently deleted. */
  deletedUsers: Map<number, ZendeskUser>;
  /** Users permanently deleted. */
  erased: number[];
  /** The next N requests are answered 429 with Retry-After. */
  throttleNext: number;
  retryAfter: string;
  /** Search results per page (Zendesk: 100). */
  perPage: number;
}

const notFound = { status: 404, body: { error: 'RecordNotFound', description: 'Not found' } };

/**
 * Zendesk Support API v2 users: GET /api/v2/users/search.json?query=email:…, GET
 * /api/v2/users/{id}.json, DELETE /api/v2/users/{id}.json (soft delete → the user,
 * active: false), DELETE /api/v2/deleted_users/{id}.json (permanent; only soft-deleted users),
 * GET /api/v2/deleted_users/{id}.json, GET /api/v2/deleted_users.json (cursor pages; permanently
 * deleted users without email), GET /api/v2/users/me.json. Basic "{email}/token:{token}".
 */
export async function startZendeskFake(): Promise<
  FakeVendor<ZendeskFakeState> & { addUser(email: string): ZendeskUser }
> {
  const state: ZendeskFakeState = {
    credentials: new Set(),
    users: new Map(),
    deletedUsers: new Map(),
    erased: [],
    throttleNext: 0,
    retryAfter: '7',
    perPage: 100,
  };
  let base = '';
  const server = await startFakeServer((call) => {
    const header = String(call.headers.authorization ?? '');
    const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
    if (!state.credentials.has(decoded)) return { status: 401, body: { error: "Couldn't authenticate you" } };
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        status: 429,
        headers: { 'retry-after': state.retryAfter },
        body: { error: 'APIRateLimitExceeded', description: 'Number of allowed API requests per minute exceeded' },
      };
    }
    if (call.path === '/api/v2/users/me.json' && call.method === 'GET') {
      const email = decoded.split('/token:')[0];
      return { status: 200, body: { user: { id: 1, email, role: 'admin', active: true } } };
    }
    if (call.path === '/api/v2/users/search.json' && call.method === 'GET') {
      // Zendesk's search is not an exact lookup: a term matches case-insensitively, and as the
      // prefix of a longer value (`email:jo@acme.co` finds jo@acme.com too). Paged with `page`.
      const query = call.query.get('query') ?? '';
      const term = (query.startsWith('email:') ? query.slice(6) : query).toLowerCase();
      const all = [...state.users.values()].filter((u) => u.email.toLowerCase().startsWith(term));
      const page = Math.max(1, Number(call.query.get('page') ?? '1'));
      const users = all.slice((page - 1) * state.perPage, page * state.perPage);
      const pageUrl = (n: number) =>
        `${base}/api/v2/users/search.json?${new URLSearchParams({ query, page: String(n) })}`;
      return {
        status: 200,
        body: {
          users,
          next_page: page * state.perPage < all.length ? pageUrl(page + 1) : null,
          previous_page: page > 1 ? pageUrl(page - 1) : null,
          count: all.length,
        },
      };
    }
    const user = /^\/api\/v2\/users\/(\d+)\.json$/.exec(call.path);
    if (user) {
      const id = Number(user[1]);
      const found = state.users.get(id);
      if (!found) return notFound;
      if (call.method === 'GET') return { status: 200, body: { user: found } };
      if (call.method === 'DELETE') {
        state.users.delete(id);
        const deleted = { ...found, active: false };
        state.deletedUsers.set(id, deleted);
        return { status: 200, body: { user: deleted } };
      }
    }
    // Deleted users, soft and permanent (the latter without personal data), by cursor pages of at most 100.
    if (call.path === '/api/v2/deleted_users.json' && call.method === 'GET') {
      const all = [
        ...[...state.deletedUsers.values()],
        ...state.erased.map((id) => ({ id, name: 'Permanently Deleted User', email: null, active: false })),
      ].sort((a, b) => a.id - b.id);
      const size = Math.min(100, Number(call.query.get('page[size]') ?? 100));
      const after = Number(call.query.get('page[after]') ?? 0);
      const page = all.filter((u) => u.id > after).slice(0, size);
      const hasMore = all.some((u) => u.id > (page.at(-1)?.id ?? after));
      const cursor = String(page.at(-1)?.id ?? after);
      return {
        status: 200,
        body: {
          deleted_users: page,
          meta: { has_more: hasMore, after_cursor: hasMore ? cursor : null, before_cursor: null },
          links: {
            next: hasMore ? `${base}/api/v2/deleted_users.json?page[size]=${size}&page[after]=${cursor}` : null,
          },
        },
      };
    }
    const deletedUser = /^\/api\/v2\/deleted_users\/(\d+)\.json$/.exec(call.path);
    if (deletedUser) {
      const id = Number(deletedUser[1]);
      const found = state.deletedUsers.get(id);
      if (!found) return notFound;
      if (call.method === 'GET') return { status: 200, body: { deleted_user: found } };
      if (call.method === 'DELETE') {
        state.deletedUsers.delete(id);
        state.erased.push(id);
        return { status: 200, body: { deleted_user: found } };
      }
    }
    return { status: 404, body: { error: 'InvalidEndpoint', description: 'Not found' } };
  });
  base = server.url;
  let nextId = 36_000_000_001;
  return {
    ...server,
    state,
    addUser(email) {
      const id = nextId++;
      const user: ZendeskUser = {
        id,
        url: `${base}/api/v2/users/${id}.json`,
        name: 'Subject',
        email,
        active: true,
        role: 'end-user',
        created_at: new Date().toISOString(),
      };
      state.users.set(id, user);
      return user;
    },
  };
}
