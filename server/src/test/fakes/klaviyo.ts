import { randomBytes } from 'node:crypto';
import { jsonOf, startFakeServer, type FakeVendor } from './vendor-server';

export interface KlaviyoFakeState {
  apiKeys: Set<string>;
  /** Profiles by id. */
  profiles: Map<string, { id: string; email: string }>;
  /** profile id -> when its deletion job has run. */
  jobs: Map<string, number>;
  jobMs: number;
  throttleNext: number;
  retryAfter: string;
}

const errors = (status: number, code: string, title: string, detail: string) => ({
  status,
  body: {
    errors: [{ id: randomBytes(8).toString('hex'), status, code, title, detail, source: { pointer: '/data/' } }],
  },
});

/**
 * Klaviyo API (revision 2026-07-15): POST /api/data-privacy-deletion-jobs (JSON:API body naming
 * the profile by email, phone or id) → 202, the profile gone once the job has run; GET
 * /api/profiles?filter=equals(email,"…") → {data: [...]}; GET /api/profiles/{id} → 404 when gone.
 * "Klaviyo-API-Key <private key>" and a `revision` header are required; 429 with Retry-After.
 */
export async function startKlaviyoFake(
  options: { jobMs?: number } = {},
): Promise<FakeVendor<KlaviyoFakeState> & { addProfile(email: string): { id: string; email: string } }> {
  const state: KlaviyoFakeState = {
    apiKeys: new Set(),
    profiles: new Map(),
    jobs: new Map(),
    jobMs: options.jobMs ?? 50,
    throttleNext: 0,
    retryAfter: '3',
  };
  const view = (p: { id: string; email: string }) => ({
    type: 'profile',
    id: p.id,
    attributes: { email: p.email },
    links: { self: `/api/profiles/${p.id}/` },
  });
  const server = await startFakeServer((call) => {
    const header = String(call.headers.authorization ?? '');
    if (!header.startsWith('Klaviyo-API-Key ') || !state.apiKeys.has(header.slice(16)))
      return errors(
        401,
        'not_authenticated',
        'Authentication credentials were not provided.',
        'Missing or invalid private key.',
      );
    if (!call.headers.revision) return errors(400, 'invalid', 'Invalid input.', 'A revision header is required.');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        ...errors(
          429,
          'throttled',
          'Request was throttled.',
          'Request was throttled. Expected available in 3 seconds.',
        ),
        headers: { 'retry-after': state.retryAfter },
      };
    }
    for (const [id, at] of state.jobs) if (at <= call.at) state.profiles.delete(id);
    if (call.path === '/api/data-privacy-deletion-jobs' && call.method === 'POST') {
      const data = (
        jsonOf(call) as
          | {
              data?: {
                type?: unknown;
                attributes?: {
                  profile?: { data?: { type?: unknown; id?: unknown; attributes?: { email?: unknown } } };
                };
              };
            }
          | undefined
      )?.data;
      const profile = data?.attributes?.profile?.data;
      if (data?.type !== 'data-privacy-deletion-job' || profile?.type !== 'profile')
        return errors(400, 'invalid', 'Invalid input.', "'data.type' must be data-privacy-deletion-job with a profile");
      const target =
        typeof profile.id === 'string'
          ? state.profiles.get(profile.id)
          : [...state.profiles.values()].find((p) => p.email === profile.attributes?.email);
      if (target && !state.jobs.has(target.id)) state.jobs.set(target.id, call.at + state.jobMs);
      return { status: 202 };
    }
    if (call.path === '/api/profiles' && call.method === 'GET') {
      const filter = call.query.get('filter');
      const match = filter ? /^equals\(email,"((?:[^"\\]|\\.)*)"\)$/.exec(filter) : null;
      if (filter && !match) return errors(400, 'invalid', 'Invalid filter.', `Invalid filter provided: ${filter}`);
      const email = match?.[1]?.replace(/\\(.)/g, '$1');
      const size = Number(call.query.get('page[size]') ?? 20);
      const data = [...state.profiles.values()]
        .filter((p) => email === undefined || p.email === email)
        .slice(0, size)
        .map(view);
      return { status: 200, body: { data, links: { self: '/api/profiles', next: null, prev: null } } };
    }
    const one = /^\/api\/profiles\/([^/]+)$/.exec(call.path);
    if (one && call.method === 'GET') {
      const profile = state.profiles.get(one[1]!);
      return profile
        ? { status: 200, body: { data: view(profile) } }
        : errors(404, 'not_found', 'Not found.', `A profile with id ${one[1]} does not exist.`);
    }
    return errors(404, 'not_found', 'Not found.', 'Not found.');
  });
  return {
    ...server,
    state,
    addProfile(email) {
      const profile = { id: `01J${randomBytes(12).toString('hex').toUpperCase()}`, email };
      state.profiles.set(profile.id, profile);
      return profile;
    },
  };
}
