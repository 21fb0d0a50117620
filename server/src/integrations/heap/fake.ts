import { randomUUID } from 'node:crypto';
import {
  bearerOf,
  jsonOf,
  startFakeServer,
  type FakeCall,
  type FakeReply,
  type FakeVendor,
} from '../../test/fakes/vendor-server';

export interface HeapUserRecord {
  /** Heap's user id (a number, kept as text). */
  userId: string;
  /** The identity given with `heap.identify`, if any. */
  identity: string | null;
  events: number;
}

export interface HeapDeletionRecord {
  id: string;
  appId: string;
  users: ({ user_identity: string } | { user_id: string | number })[];
  createdAt: number;
}

export interface HeapFakeState {
  /** App id (Main Production environment id) → its API key. */
  apps: Map<string, string>;
  /** Issued auth tokens and the app each belongs to; they expire `tokenTtlMs` after issue. */
  tokens: Map<string, { appId: string; expiresAt: number }>;
  tokenTtlMs: number;
  users: HeapUserRecord[];
  deletions: Map<string, HeapDeletionRecord>;
  /** A deletion request stays `pending` this long, then the users it names are gone and it is `complete`. */
  completeAfterMs: number;
  /** The next this many requests are answered 429 (`retryAfter`, when set, as Retry-After). */
  rateLimitNext: number;
  retryAfter?: string;
}

const err = (status: number, message: string, headers?: Record<string, string>): FakeReply => ({
  status,
  body: { err: message },
  headers,
});

/** What Heap's page says of `users`: up to 10,000, each one `user_identity` or one `user_id`. */
export function heapUsersProblem(body: unknown): string | null {
  const users = (body as { users?: unknown } | undefined)?.users;
  if (!Array.isArray(users) || users.length === 0) return 'users must be a non-empty array';
  if (users.length > 10_000) return 'at most 10,000 users per request';
  for (const user of users) {
    const keys = user && typeof user === 'object' ? Object.keys(user) : [];
    if (keys.length !== 1 || !['user_identity', 'user_id'].includes(keys[0]!))
      return 'each user is {user_identity} or {user_id}';
    const value = (user as Record<string, unknown>)[keys[0]!];
    if (!(typeof value === 'string' && value !== '') && typeof value !== 'number') return `${keys[0]} must be given`;
  }
  return null;
}

/**
 * Heap's User Deletion API as its reference page describes it: POST /api/public/v0/auth_token with
 * HTTP Basic app_id:api_key (200 `{access_token}`, or `{err}`; any app id but the one the key
 * belongs to is Unauthorized; the token expires after 5 minutes), POST /api/public/v0/user_deletion
 * with the token as Bearer and `{users: [{user_identity} | {user_id}]}` (up to 10,000), answered
 * `{deletion_request_id}`; GET /api/public/v0/deletion_status/{id} answers `{deletion_request_id,
 * status}`, `pending` until `completeAfterMs` has passed, then `complete` (the named users are
 * then gone). `contract.test.ts` holds every call to these rules.
 */
export async function startHeapFake(): Promise<
  FakeVendor<HeapFakeState> & {
    addApp(appId: string, apiKey: string): void;
    addUser(identity: string | null): HeapUserRecord;
  }
> {
  const state: HeapFakeState = {
    apps: new Map(),
    tokens: new Map(),
    tokenTtlMs: 5 * 60_000,
    users: [],
    deletions: new Map(),
    completeAfterMs: 0,
    rateLimitNext: 0,
  };
  let nextUserId = 4_000_000_000_001;

  const complete = (deletion: HeapDeletionRecord) => Date.now() - deletion.createdAt >= state.completeAfterMs;
  const named = (deletion: HeapDeletionRecord, user: HeapUserRecord) =>
    deletion.users.some((u) =>
      'user_identity' in u ? u.user_identity === user.identity : String(u.user_id) === user.userId,
    );
  const settle = () => {
    for (const deletion of state.deletions.values())
      if (complete(deletion)) state.users = state.users.filter((user) => !named(deletion, user));
  };
  const tokenApp = (call: FakeCall) => {
    const token = bearerOf(call);
    const issued = token ? state.tokens.get(token) : undefined;
    return issued && issued.expiresAt > Date.now() ? issued.appId : undefined;
  };

  const handle = (call: FakeCall): FakeReply => {
    settle();
    if (state.rateLimitNext > 0) {
      state.rateLimitNext--;
      return err(429, 'Too Many Requests', state.retryAfter ? { 'retry-after': state.retryAfter } : undefined);
    }
    if (call.method === 'POST' && call.path === '/api/public/v0/auth_token') {
      const header = typeof call.headers.authorization === 'string' ? call.headers.authorization : '';
      const [appId, apiKey] = header.startsWith('Basic ')
        ? Buffer.from(header.slice(6), 'base64').toString('utf8').split(':')
        : [];
      if (!appId || !apiKey || state.apps.get(appId) !== apiKey) return err(401, 'Unauthorized');
      const token = randomUUID();
      state.tokens.set(token, { appId, expiresAt: Date.now() + state.tokenTtlMs });
      return { status: 200, body: { access_token: token } };
    }
    const appId = tokenApp(call);
    if (call.method === 'POST' && call.path === '/api/public/v0/user_deletion') {
      if (!appId) return err(401, 'Unauthorized');
      const body = jsonOf(call);
      const problem = heapUsersProblem(body);
      if (problem) return err(400, problem);
      const deletion: HeapDeletionRecord = {
        id: randomUUID(),
        appId,
        users: (body as HeapDeletionRecord).users,
        createdAt: Date.now(),
      };
      state.deletions.set(deletion.id, deletion);
      return { status: 200, body: { deletion_request_id: deletion.id } };
    }
    const status = /^\/api\/public\/v0\/deletion_status\/([^/]+)$/.exec(call.path);
    if (call.method === 'GET' && status) {
      if (!appId) return err(401, 'Unauthorized');
      const deletion = state.deletions.get(decodeURIComponent(status[1]!));
      if (!deletion || deletion.appId !== appId) return err(404, 'Deletion request not found');
      return {
        status: 200,
        body: { deletion_request_id: deletion.id, status: complete(deletion) ? 'complete' : 'pending' },
      };
    }
    return err(404, 'Not Found');
  };

  const server = await startFakeServer(handle);
  return {
    ...server,
    state,
    addApp(appId, apiKey) {
      state.apps.set(appId, apiKey);
    },
    addUser(identity) {
      const user = { userId: String(nextUserId++), identity, events: 12 };
      state.users.push(user);
      return user;
    },
  };
}
