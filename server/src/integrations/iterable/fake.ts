import { createHash } from 'node:crypto';
import { jsonOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface IterableUser {
  email: string | null;
  userId: string | null;
  dataFields: Record<string, unknown>;
}

export interface IterableFakeState {
  apiKeys: Set<string>;
  users: IterableUser[];
  /** SHA-256 of each forgotten identifier (lower-cased, whitespace stripped), as Iterable keeps them. */
  forgotten: Set<string>;
  /** Forgotten users still present, by when their forget has run (Iterable: "up to ten minutes"). */
  forgetting: Map<IterableUser, number>;
  forgetLagMs: number;
  throttleNext: number;
}

/** How Iterable says it keeps a forgotten identifier: lower case, no whitespace, SHA-256. */
export const forgottenHash = (identifier: string) =>
  createHash('sha256').update(identifier.toLowerCase().replace(/\s+/g, '')).digest('hex');

/** Iterable's answer body: `{msg, code, params}` ("Success" or an error code). */
const answer = (status: number, code: string, msg: string) => ({ status, body: { msg, code, params: null } });

/**
 * Iterable (a hybrid project: users by email or userId). `Api-Key` header. POST /api/users/forget
 * {email} or {userId} → 200 Success, the user deleted after a lag and the identifier kept (hashed) so
 * POST /api/users/update ignores it; GET /api/users/{email} and /api/users/byUserId/{userId} → 200
 * {user} or 200 {} when there is none.
 */
export async function startIterableFake(options: { forgetLagMs?: number } = {}): Promise<
  FakeVendor<IterableFakeState> & {
    addUser(email: string | null, userId?: string | null): IterableUser;
  }
> {
  const state: IterableFakeState = {
    apiKeys: new Set(),
    users: [],
    forgotten: new Set(),
    forgetting: new Map(),
    forgetLagMs: options.forgetLagMs ?? 50,
    throttleNext: 0,
  };
  const addUser = (email: string | null, userId: string | null = null): IterableUser => {
    const user: IterableUser = { email, userId, dataFields: { email } };
    state.users.push(user);
    return user;
  };
  const byEmail = (email: string) => state.users.find((u) => u.email?.toLowerCase() === email.toLowerCase());
  const byUserId = (userId: string) => state.users.find((u) => u.userId === userId);
  const isForgotten = (email?: string | null, userId?: string | null) =>
    [email, userId].some((id) => id && state.forgotten.has(forgottenHash(id)));
  const profile = (user: IterableUser | undefined) =>
    user
      ? {
          user: {
            email: user.email ?? '',
            ...(user.userId ? { userId: user.userId } : {}),
            dataFields: user.dataFields,
          },
        }
      : {};

  const server = await startFakeServer((call) => {
    for (const [user, at] of state.forgetting)
      if (at <= call.at) {
        state.users = state.users.filter((u) => u !== user);
        state.forgetting.delete(user);
      }
    const key = call.headers['api-key'] ?? call.headers['api_key'];
    if (typeof key !== 'string' || !state.apiKeys.has(key)) return answer(401, 'BadApiKey', 'Invalid API key');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return answer(429, 'RateLimitExceeded', 'Rate limit exceeded');
    }
    if (call.method === 'POST' && call.path === '/api/users/forget') {
      const body = jsonOf(call) as { email?: unknown; userId?: unknown } | undefined;
      const email = typeof body?.email === 'string' ? body.email : undefined;
      const userId = typeof body?.userId === 'string' ? body.userId : undefined;
      if (!email === !userId) return answer(400, 'BadParams', 'Exactly one of email or userId is required');
      const user = email ? byEmail(email) : byUserId(userId!);
      for (const id of [email, userId, user?.email, user?.userId]) if (id) state.forgotten.add(forgottenHash(id));
      if (user && !state.forgetting.has(user)) state.forgetting.set(user, call.at + state.forgetLagMs);
      return answer(200, 'Success', 'User forgotten');
    }
    if (call.method === 'POST' && call.path === '/api/users/update') {
      const body = (jsonOf(call) ?? {}) as { email?: string; userId?: string; dataFields?: Record<string, unknown> };
      if (!body.email && !body.userId) return answer(400, 'BadParams', 'email or userId is required');
      // A forgotten user's data is not collected again.
      if (isForgotten(body.email, body.userId))
        return answer(400, 'ForgottenUserError', 'This user has been forgotten');
      const user = (body.email && byEmail(body.email)) || (body.userId && byUserId(body.userId)) || undefined;
      if (user) Object.assign(user.dataFields, body.dataFields ?? {});
      else addUser(body.email ?? null, body.userId ?? null).dataFields = { ...body.dataFields };
      return answer(200, 'Success', 'User updated');
    }
    if (call.method === 'GET') {
      const byId = /^\/api\/users\/byUserId\/([^/]+)$/.exec(call.path);
      if (byId) return { status: 200, body: profile(byUserId(decodeURIComponent(byId[1]!))) };
      const email = /^\/api\/users\/([^/]+)$/.exec(call.path);
      if (email && email[1] !== 'forgotten' && email[1] !== 'getFields')
        return { status: 200, body: profile(byEmail(decodeURIComponent(email[1]!))) };
    }
    return answer(404, 'NotFound', 'Not found');
  });
  return { ...server, state, addUser };
}
