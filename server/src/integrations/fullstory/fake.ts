import { startFakeServer, type FakeCall, type FakeReply, type FakeVendor } from '../../test/fakes/vendor-server';

export interface FullstoryUserRecord {
  id: string;
  uid: string;
  display_name: string;
  email: string;
  properties: Record<string, unknown>;
  /** When a DELETE reached the user: it answers `is_being_deleted: true` until `deleteAfterMs` later, then 404. */
  deletingSince?: number;
}

export interface FullstoryFakeState {
  /** API keys Fullstory accepts (`Authorization: Basic {key}`). */
  apiKeys: Set<string>;
  users: Map<string, FullstoryUserRecord>;
  /** How long a deleted user stays listed with `is_being_deleted: true` before it is gone. */
  deleteAfterMs: number;
  /** The next this many requests are answered 429 with `Retry-After: retryAfter`. */
  rateLimitNext: number;
  retryAfter: string;
  /** Every user a DELETE reached, by id and uid. */
  deleted: { id: string; uid: string; by: 'id' | 'uid' }[];
}

const error = (status: number, code: string, message: string, headers?: Record<string, string>): FakeReply => ({
  status,
  body: { message, code },
  headers,
});

/**
 * Fullstory Server API v2 users as its published OpenAPI document
 * (`server/src/integrations/fullstory/vendor/users.sdk.swagger.json`) describes them: ListUsers
 * (GET /v2/users?uid=, `{results, total_records}`), GetUser (GET /v2/users/{id}), DeleteUser
 * (DELETE /v2/users/{id}) and DeleteUserByUid (DELETE /v2/users?uid=), each 200 `{}`; errors are
 * `{message, code}` (400 `required_field` without a uid, 401, 404 `resource_not_found`, 429 with
 * Retry-After). A deleted user is listed with `is_being_deleted: true` for `deleteAfterMs`, then
 * answers 404. `contract.test.ts` validates every request and answer against the document.
 */
export async function startFullstoryFake(): Promise<
  FakeVendor<FullstoryFakeState> & { addUser(uid: string, email: string): FullstoryUserRecord }
> {
  const state: FullstoryFakeState = {
    apiKeys: new Set(),
    users: new Map(),
    deleteAfterMs: 0,
    rateLimitNext: 0,
    retryAfter: '1',
    deleted: [],
  };
  let nextId = 987654321;
  const gone = (user: FullstoryUserRecord) =>
    user.deletingSince !== undefined && Date.now() - user.deletingSince >= state.deleteAfterMs;
  const listed = () => [...state.users.values()].filter((user) => !gone(user));
  const view = (user: FullstoryUserRecord) => ({
    id: user.id,
    uid: user.uid,
    display_name: user.display_name,
    email: user.email,
    is_being_deleted: user.deletingSince !== undefined,
    properties: user.properties,
    app_url: `https://app.fullstory.com/ui/o-fake/segments/everyone/people:search:fake/user/${user.id}`,
  });
  const remove = (user: FullstoryUserRecord, by: 'id' | 'uid') => {
    user.deletingSince ??= Date.now();
    state.deleted.push({ id: user.id, uid: user.uid, by });
  };

  const handle = (call: FakeCall): FakeReply => {
    if (state.rateLimitNext > 0) {
      state.rateLimitNext--;
      return error(
        429,
        'too_many_requests',
        'Too many requests. Client has exceeded the rate limit for this endpoint.',
        {
          'retry-after': state.retryAfter,
        },
      );
    }
    const auth = typeof call.headers.authorization === 'string' ? call.headers.authorization : '';
    if (!auth.startsWith('Basic ') || !state.apiKeys.has(auth.slice(6)))
      return error(401, 'unauthorized', 'access is unauthorized');
    const one = /^\/v2\/users\/([^/]+)$/.exec(call.path);
    if (one) {
      const user = state.users.get(decodeURIComponent(one[1]!));
      if (!user || gone(user)) return error(404, 'resource_not_found', 'Requested resource does not exist');
      if (call.method === 'GET') return { status: 200, body: view(user) };
      if (call.method === 'DELETE') {
        remove(user, 'id');
        return { status: 200, body: {} };
      }
    }
    if (call.path === '/v2/users') {
      const uid = call.query.get('uid');
      if (call.method === 'GET') {
        const results = listed()
          .filter((user) => uid === null || user.uid === uid)
          .map(view);
        return { status: 200, body: { results, total_records: String(results.length) } };
      }
      if (call.method === 'DELETE') {
        if (!uid) return error(400, 'required_field', 'uid is required');
        const matching = listed().filter((user) => user.uid === uid);
        if (matching.length === 0) return error(404, 'resource_not_found', 'Requested resource does not exist');
        for (const user of matching) remove(user, 'uid');
        return { status: 200, body: {} };
      }
    }
    return error(404, 'resource_not_found', 'Requested resource does not exist');
  };

  const server = await startFakeServer(handle);
  return {
    ...server,
    state,
    addUser(uid, email) {
      const user: FullstoryUserRecord = {
        id: String(nextId++),
        uid,
        display_name: email.split('@')[0]!,
        email,
        properties: { pricing_plan: 'paid' },
      };
      state.users.set(user.id, user);
      return user;
    },
  };
}
