import { randomBytes } from 'node:crypto';
import { VendorOpenApi } from '../../test/fakes/vendor-openapi';
import { jsonOf, startFakeServer, type FakeCall, type FakeVendor } from '../../test/fakes/vendor-server';

/** Klaviyo's own OpenAPI documents of the three operations the connector uses (see its SOURCES.md). */
const DOCUMENTS = ['request_profile_deletion', 'get_profiles', 'get_profile'].map(
  (name) => new URL(`./vendor/${name}.json`, import.meta.url),
);

/** The three documents as one: each call is checked against the document that has its operation. */
export class KlaviyoContract {
  constructor(readonly documents: VendorOpenApi[]) {}

  static async load(): Promise<KlaviyoContract> {
    return new KlaviyoContract(await Promise.all(DOCUMENTS.map((file) => VendorOpenApi.load(file))));
  }

  private documentFor(call: FakeCall): VendorOpenApi {
    return this.documents.find((d) => d.checkRequest(call).every((p) => !p.includes('no such operation')))!;
  }

  /**
   * What the documents refuse in a request. The documents list only application/vnd.api+json
   * bodies, yet Klaviyo's own SDK (klaviyo-api) sends application/json, so Klaviyo takes both.
   */
  checkRequest(call: FakeCall): string[] {
    const document = this.documentFor(call);
    if (!document) return [`${call.method} ${call.path}: no Klaviyo document has it`];
    return document.checkRequest(call).filter((p) => !p.includes('request content-type "application/json"'));
  }

  checkCalls(calls: FakeCall[]): string[] {
    return calls.flatMap((call, i) =>
      [...this.checkRequest(call), ...(this.documentFor(call)?.checkResponse(call) ?? [])].map((p) => `#${i} ${p}`),
    );
  }

  exercised(calls: FakeCall[]): string[] {
    return calls.flatMap((call) => [...(this.documentFor(call)?.exercised([call]) ?? [])]);
  }
}

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

/** JSON:API answers carry Klaviyo's media type, as its documents list for every answer. */
const JSON_API = { 'content-type': 'application/vnd.api+json' };
/** Klaviyo's links are absolute. */
const LINKS = 'https://a.klaviyo.com/api';

const errors = (status: number, code: string, title: string, detail: string) => ({
  status,
  headers: JSON_API,
  body: {
    errors: [{ id: randomBytes(8).toString('hex'), code, title, detail, source: { pointer: '/data/' } }],
  },
});

/**
 * Klaviyo API (revision 2026-07-15): POST /api/data-privacy-deletion-jobs (JSON:API body naming
 * the profile by email, phone or id) → 202, the profile gone once the job has run; GET
 * /api/profiles?filter=equals(email,"…") → {data: [...]}; GET /api/profiles/{id} → 404 when gone.
 * "Klaviyo-API-Key <private key>" and a `revision` header are required; 429 with Retry-After.
 * Every request is checked against Klaviyo's OpenAPI document of its operation: one it refuses
 * is answered 400 with the document's words, as Klaviyo validates its input.
 */
export async function startKlaviyoFake(
  options: { jobMs?: number } = {},
): Promise<FakeVendor<KlaviyoFakeState> & { addProfile(email: string): { id: string; email: string } }> {
  const contract = await KlaviyoContract.load();
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
    links: { self: `${LINKS}/profiles/${p.id}/` },
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
        headers: { ...JSON_API, 'retry-after': state.retryAfter },
      };
    }
    const invalid = contract.checkRequest(call);
    if (invalid.length) return errors(400, 'invalid', 'Invalid input.', invalid.join('; '));
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
      return { status: 200, headers: JSON_API, body: { data, links: { self: `${LINKS}/profiles/` } } };
    }
    const one = /^\/api\/profiles\/([^/]+)$/.exec(call.path);
    if (one && call.method === 'GET') {
      const profile = state.profiles.get(one[1]!);
      return profile
        ? {
            status: 200,
            headers: JSON_API,
            body: { data: view(profile), links: { self: `${LINKS}/profiles/${profile.id}/` } },
          }
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
