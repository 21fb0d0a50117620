import { randomUUID } from 'node:crypto';
import { startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface OnesignalUser {
  properties: { language: string; timezone_id: string; country: string; first_active: number; last_active: number };
  /** Aliases: onesignal_id, external_id and any custom label. */
  identity: Record<string, string>;
  subscriptions: { id: string; type: string; token: string; enabled: boolean }[];
}

export interface OnesignalFakeState {
  appId: string;
  /** REST API keys of the app. */
  apiKeys: Set<string>;
  users: OnesignalUser[];
  /** onesignal_id -> when the deletion is done (0: at once). */
  deleting: Map<string, number>;
  deleteLagMs: number;
  throttleNext: number;
  /** Seconds in a 429's Retry-After; empty: the 429 carries none. */
  retryAfter: string;
}

/**
 * OneSignal's user API as the official SDK (@onesignal/node-onesignal) calls it:
 * GET /apps/{app_id}/users/by/{alias_label}/{alias_id} → the User ({properties, identity,
 * subscriptions}) or 404, DELETE the same path → 200 `{identity: {onesignal_id}}` (the user, its subscriptions and aliases
 * removed, after `deleteLagMs`). `Authorization: Key <REST API key>`; 429 `{errors, limit}` with Retry-After.
 */
export async function startOnesignalFake(
  options: { deleteLagMs?: number } = {},
): Promise<FakeVendor<OnesignalFakeState> & { addUser(externalId: string | null, email?: string): OnesignalUser }> {
  const state: OnesignalFakeState = {
    appId: '5eb5a37e-b458-11e3-ac11-000c2940e62c',
    apiKeys: new Set(),
    users: [],
    deleting: new Map(),
    deleteLagMs: options.deleteLagMs ?? 0,
    throttleNext: 0,
    retryAfter: '4',
  };
  const server = await startFakeServer((call) => {
    for (const [id, at] of state.deleting)
      if (at <= call.at) {
        state.users = state.users.filter((u) => u.identity.onesignal_id !== id);
        state.deleting.delete(id);
      }
    const match = /^\/apps\/([^/]+)\/users\/by\/([^/]+)\/([^/]+)$/.exec(call.path);
    const header = String(call.headers.authorization ?? '');
    if (!header.startsWith('Key ') || !state.apiKeys.has(header.slice(4)))
      return {
        status: 403,
        body: {
          errors: [
            "Access denied.  Please include an 'Authorization: ...' header with a valid API key (https://documentation.onesignal.com/docs/accounts-and-keys#api-keys).",
          ],
        },
      };
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        status: 429,
        headers: state.retryAfter ? { 'retry-after': state.retryAfter } : ({} as Record<string, string>),
        body: { errors: ['API rate limit exceeded'], limit: 'per_app' },
      };
    }
    if (!match || decodeURIComponent(match[1]!) !== state.appId)
      return { status: 400, body: { errors: [{ code: 'invalid-app-id', title: 'The app id is not valid' }] } };
    const label = decodeURIComponent(match[2]!);
    const id = decodeURIComponent(match[3]!);
    const user = state.users.find((u) => u.identity[label] === id);
    if (!user) return { status: 404, body: { errors: [{ code: 'user-2', title: 'User not found' }] } };
    if (call.method === 'GET') return { status: 200, body: user };
    if (call.method === 'DELETE') {
      state.deleting.set(user.identity.onesignal_id!, call.at + state.deleteLagMs);
      if (state.deleteLagMs === 0) state.users = state.users.filter((u) => u !== user);
      return { status: 200, body: { identity: { onesignal_id: user.identity.onesignal_id } } };
    }
    return { status: 405, body: { errors: ['Method not allowed'] } };
  });
  return {
    ...server,
    state,
    addUser(externalId, email) {
      const now = Math.floor(Date.now() / 1000);
      const user: OnesignalUser = {
        properties: {
          language: 'en',
          timezone_id: 'Europe/London',
          country: 'GB',
          first_active: now,
          last_active: now,
        },
        identity: { onesignal_id: randomUUID(), ...(externalId ? { external_id: externalId } : {}) },
        subscriptions: email ? [{ id: randomUUID(), type: 'Email', token: email, enabled: true }] : [],
      };
      state.users.push(user);
      return user;
    },
  };
}
