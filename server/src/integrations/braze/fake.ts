import { randomBytes } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface BrazeProfile {
  braze_id: string;
  external_id: string | null;
  email: string | null;
}

export interface BrazeFakeState {
  apiKeys: Set<string>;
  profiles: Map<string, BrazeProfile>;
  /** braze_id -> when a deleted profile disappears from exports. */
  pendingDeletes: Map<string, number>;
  /** How long a deleted profile still exports. */
  deleteLagMs: number;
  throttleNext: number;
  resetInSeconds: number;
}

/**
 * Braze REST API: POST /users/export/ids {external_ids | braze_id | email_address,
 * fields_to_export} → {users, invalid_user_ids?, message: 'success'}; POST /users/delete
 * {external_ids | braze_ids | user_aliases} → 201 {deleted, message: 'success'}, the profiles
 * disappearing after a lag. Bearer REST API key; 429 with X-RateLimit-Reset.
 */
export async function startBrazeFake(
  options: { deleteLagMs?: number } = {},
): Promise<FakeVendor<BrazeFakeState> & { addProfile(externalId: string | null, email?: string): BrazeProfile }> {
  const state: BrazeFakeState = {
    apiKeys: new Set(),
    profiles: new Map(),
    pendingDeletes: new Map(),
    deleteLagMs: options.deleteLagMs ?? 50,
    throttleNext: 0,
    resetInSeconds: 6,
  };
  const server = await startFakeServer((call) => {
    const key = bearerOf(call);
    if (!key || !state.apiKeys.has(key))
      return { status: 401, body: { message: 'Invalid API key: the key does not exist or has been deactivated' } };
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        status: 429,
        headers: {
          'x-ratelimit-limit': '20000',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(call.at / 1000) + state.resetInSeconds),
        },
        body: { message: 'Rate limit exceeded' },
      };
    }
    for (const [id, at] of state.pendingDeletes) if (at <= call.at) state.profiles.delete(id);
    const body = jsonOf(call) as Record<string, unknown> | undefined;
    if (call.method !== 'POST') return { status: 405, body: { message: 'Method not allowed' } };
    if (!body || typeof body !== 'object') return { status: 400, body: { message: 'Invalid JSON body' } };
    if (call.path === '/users/export/ids') {
      const externalIds = body.external_ids as unknown;
      if (externalIds !== undefined && (!Array.isArray(externalIds) || externalIds.length > 50))
        return { status: 400, body: { message: "'external_ids' must be an array of at most 50 ids" } };
      const all = [...state.profiles.values()];
      const users = Array.isArray(externalIds)
        ? all.filter((p) => p.external_id !== null && (externalIds as unknown[]).includes(p.external_id))
        : typeof body.braze_id === 'string'
          ? all.filter((p) => p.braze_id === body.braze_id)
          : typeof body.email_address === 'string'
            ? all.filter((p) => p.email === body.email_address)
            : null;
      if (users === null)
        return {
          status: 400,
          body: { message: 'Provide external_ids, braze_id, email_address, device_id, phone or user_aliases' },
        };
      const invalid = Array.isArray(externalIds)
        ? (externalIds as string[]).filter((id) => !users.some((u) => u.external_id === id))
        : [];
      return {
        status: 201,
        body: {
          users: users.map((u) => ({ braze_id: u.braze_id, external_id: u.external_id ?? undefined })),
          ...(invalid.length ? { invalid_user_ids: invalid } : {}),
          message: 'success',
        },
      };
    }
    if (call.path === '/users/delete') {
      const ids = [
        ...((body.braze_ids as string[] | undefined) ?? []),
        ...((body.external_ids as string[] | undefined) ?? []),
      ];
      if (ids.length === 0 || ids.length > 50)
        return { status: 400, body: { message: 'Provide 1 to 50 external_ids, braze_ids or user_aliases' } };
      let deleted = 0;
      for (const p of state.profiles.values()) {
        if (
          (ids.includes(p.braze_id) || (p.external_id && ids.includes(p.external_id))) &&
          !state.pendingDeletes.has(p.braze_id)
        ) {
          state.pendingDeletes.set(p.braze_id, call.at + state.deleteLagMs);
          deleted++;
        }
      }
      return { status: 201, body: { deleted, message: 'success' } };
    }
    return { status: 404, body: { message: 'Not found' } };
  });
  return {
    ...server,
    state,
    addProfile(externalId, email) {
      const profile: BrazeProfile = {
        braze_id: randomBytes(12).toString('hex'),
        external_id: externalId,
        email: email ?? null,
      };
      state.profiles.set(profile.braze_id, profile);
      return profile;
    },
  };
}
