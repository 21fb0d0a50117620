import { randomUUID } from 'node:crypto';
import {
  bearerOf,
  jsonOf,
  startFakeServer,
  type FakeCall,
  type FakeReply,
  type FakeVendor,
} from '../../test/fakes/vendor-server';

/** Something Hotjar holds about a visitor: a survey or feedback response (with an email) or a User ID's attributes. */
export interface HotjarHitRecord {
  siteId: string;
  email: string | null;
  userId: string | null;
}

export interface HotjarFakeState {
  /** API keys: client id → client secret. */
  clients: Map<string, string>;
  /** Issued tokens → the client id they belong to. */
  tokens: Map<string, string>;
  organizationId: string;
  /** The organization's sites. */
  siteIds: string[];
  hits: HotjarHitRecord[];
  /** Every lookup that deleted, with what it named. */
  deletions: { email?: string; map?: Record<string, string>; removed: number }[];
  /** The next this many requests are answered 429 (`retryAfter`, when set, as Retry-After). */
  rateLimitNext: number;
  retryAfter?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What the User Lookup takes (SOURCES.md): at least one of the email or the site→User ID map, `delete_all_hits` a boolean. */
export function hotjarLookupProblem(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'the body is a JSON object';
  const {
    data_subject_email: email,
    data_subject_site_id_to_user_id_map: map,
    delete_all_hits: remove,
    ...rest
  } = body as Record<string, unknown>;
  if (Object.keys(rest).length) return `unknown fields: ${Object.keys(rest).join(', ')}`;
  if (email === undefined && map === undefined)
    return 'one of data_subject_email or data_subject_site_id_to_user_id_map is required';
  if (email !== undefined && (typeof email !== 'string' || !EMAIL.test(email)))
    return 'data_subject_email is an email address';
  if (
    map !== undefined &&
    (!map ||
      typeof map !== 'object' ||
      Array.isArray(map) ||
      Object.keys(map).length === 0 ||
      Object.entries(map).some(([site, user]) => !/^\d+$/.test(site) || typeof user !== 'string' || user === ''))
  )
    return 'data_subject_site_id_to_user_id_map maps site ids to User IDs';
  if (remove !== undefined && typeof remove !== 'boolean') return 'delete_all_hits is a boolean';
  return null;
}

/**
 * Hotjar's API as its API Reference describes it: POST /v1/oauth/token (form-encoded
 * `grant_type=client_credentials`, `client_id`, `client_secret`; `{access_token, token_type,
 * expires_in}`), then POST /v1/organizations/{organization_id}/user-lookup with the token as Bearer
 * and `{data_subject_email | data_subject_site_id_to_user_id_map, delete_all_hits}`; with
 * `delete_all_hits: true` every hit of the subject on the organization's sites is removed.
 * `contract.test.ts` holds every call to these rules.
 */
export async function startHotjarFake(): Promise<
  FakeVendor<HotjarFakeState> & { addHit(hit: Partial<HotjarHitRecord>): HotjarHitRecord }
> {
  const state: HotjarFakeState = {
    clients: new Map(),
    tokens: new Map(),
    organizationId: '7301',
    siteIds: ['1100201', '1100202'],
    hits: [],
    deletions: [],
    rateLimitNext: 0,
  };

  const handle = (call: FakeCall): FakeReply => {
    if (state.rateLimitNext > 0) {
      state.rateLimitNext--;
      return {
        status: 429,
        body: { message: 'Too Many Requests' },
        headers: state.retryAfter ? { 'retry-after': state.retryAfter } : undefined,
      };
    }
    if (call.method === 'POST' && call.path === '/v1/oauth/token') {
      const type = String(call.headers['content-type'] ?? '');
      if (!type.startsWith('application/x-www-form-urlencoded'))
        return { status: 400, body: { error: 'invalid_request', error_description: 'form-encoded body required' } };
      const form = new URLSearchParams(call.body);
      if (form.get('grant_type') !== 'client_credentials')
        return { status: 400, body: { error: 'unsupported_grant_type' } };
      const id = form.get('client_id') ?? '';
      if (!state.clients.has(id) || state.clients.get(id) !== form.get('client_secret'))
        return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
      const token = randomUUID();
      state.tokens.set(token, id);
      return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } };
    }
    const lookup = /^\/v1\/organizations\/([^/]+)\/user-lookup$/.exec(call.path);
    if (call.method === 'POST' && lookup) {
      const token = bearerOf(call);
      if (!token || !state.tokens.has(token)) return { status: 401, body: { message: 'Unauthorized' } };
      if (decodeURIComponent(lookup[1]!) !== state.organizationId)
        return { status: 404, body: { message: 'Not Found' } };
      const body = jsonOf(call);
      const problem = hotjarLookupProblem(body);
      if (problem) return { status: 400, body: { message: problem } };
      const {
        data_subject_email: email,
        data_subject_site_id_to_user_id_map: map,
        delete_all_hits: remove,
      } = body as {
        data_subject_email?: string;
        data_subject_site_id_to_user_id_map?: Record<string, string>;
        delete_all_hits?: boolean;
      };
      const matches = (hit: HotjarHitRecord) =>
        (email !== undefined && hit.email?.toLowerCase() === email.toLowerCase()) ||
        (map !== undefined && hit.userId !== null && map[hit.siteId] === hit.userId);
      const found = state.hits.filter(matches);
      if (remove) {
        state.hits = state.hits.filter((hit) => !matches(hit));
        state.deletions.push({ email, map, removed: found.length });
      }
      return { status: 200, body: {} };
    }
    return { status: 404, body: { message: 'Not Found' } };
  };

  const server = await startFakeServer(handle);
  return {
    ...server,
    state,
    addHit(hit) {
      const record = { siteId: state.siteIds[0]!, email: null, userId: null, ...hit };
      state.hits.push(record);
      return record;
    },
  };
}
