import { startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface PipedrivePerson {
  id: number;
  name: string;
  emails: { value: string; primary: boolean; label: string }[];
  phones: { value: string; primary: boolean; label: string }[];
  is_deleted: boolean;
  add_time: string;
  update_time: string;
  visible_to: number;
  owner_id: number;
}

export interface PipedriveFakeState {
  apiTokens: Set<string>;
  persons: Map<number, PipedrivePerson>;
  /** The next N requests are answered 429. */
  throttleNext: number;
  /** Seconds in x-ratelimit-reset and Retry-After of a 429. */
  resetSeconds: number;
  /** Search results a page holds at most (the driver asks for `limit`). */
  maxPage: number;
}

const RATE_HEADERS = { 'x-ratelimit-limit': '40', 'x-ratelimit-remaining': '39', 'x-ratelimit-reset': '2' };

/**
 * Pipedrive API v2 persons, as the official SDK (`pipedrive`, generated from Pipedrive's OpenAPI
 * document) calls them: GET /api/v2/persons/search?term=&fields=email&exact_match=true (cursor
 * pages, deleted persons not found), GET /api/v2/persons/{id} (404 once deleted), DELETE
 * /api/v2/persons/{id} → {success, data: {id}}, GET /api/v2/persons. The API token in
 * `x-api-token`; rate-limit headers on every answer, 429 with x-ratelimit-reset and Retry-After.
 */
export async function startPipedriveFake(): Promise<
  FakeVendor<PipedriveFakeState> & { addPerson(email: string, name?: string): PipedrivePerson }
> {
  const state: PipedriveFakeState = {
    apiTokens: new Set(),
    persons: new Map(),
    throttleNext: 0,
    resetSeconds: 2,
    maxPage: 500,
  };
  const ok = (body: unknown, status = 200) => ({ status, headers: RATE_HEADERS, body });
  const error = (status: number, message: string, info = 'Please check developers.pipedrive.com') => ({
    status,
    headers: RATE_HEADERS,
    body: { success: false, error: message, error_info: info, data: null, additional_data: null },
  });
  const live = () => [...state.persons.values()].filter((p) => !p.is_deleted);
  const server = await startFakeServer((call) => {
    const token = call.headers['x-api-token'];
    if (typeof token !== 'string' || !state.apiTokens.has(token)) return error(401, 'unauthorized access');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      const seconds = String(state.resetSeconds);
      return {
        status: 429,
        headers: {
          'x-ratelimit-limit': '40',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': seconds,
          'retry-after': seconds,
        },
        body: { success: false, error: 'Request over limit', errorCode: 429, error_info: '' },
      };
    }
    if (call.path === '/api/v2/persons/search' && call.method === 'GET') {
      const term = (call.query.get('term') ?? '').toLowerCase();
      if (term.length < 1) return error(400, 'term is required');
      const exact = call.query.get('exact_match') === 'true';
      const fields = (call.query.get('fields') ?? 'email,name,phone,notes,custom_fields').split(',');
      const hit = (p: PipedrivePerson) =>
        (fields.includes('email') &&
          p.emails.some((e) => (exact ? e.value.toLowerCase() === term : e.value.toLowerCase().includes(term)))) ||
        (fields.includes('name') && (exact ? p.name.toLowerCase() === term : p.name.toLowerCase().includes(term)));
      const all = live().filter(hit);
      const limit = Math.min(state.maxPage, Number(call.query.get('limit') ?? '100'));
      const start = Number(
        call.query.get('cursor') ? Buffer.from(call.query.get('cursor')!, 'base64').toString() : '0',
      );
      const page = all.slice(start, start + limit);
      const next = start + limit < all.length ? Buffer.from(String(start + limit)).toString('base64') : null;
      return ok({
        success: true,
        data: {
          items: page.map((p) => ({
            result_score: 1,
            item: {
              id: p.id,
              type: 'person',
              name: p.name,
              phones: p.phones.map((x) => x.value),
              emails: p.emails.map((x) => x.value),
              visible_to: p.visible_to,
              owner: { id: p.owner_id },
              organization: null,
              custom_fields: [],
              notes: [],
            },
          })),
        },
        additional_data: { next_cursor: next },
      });
    }
    if (call.path === '/api/v2/persons' && call.method === 'GET') {
      const limit = Number(call.query.get('limit') ?? '100');
      return ok({ success: true, data: live().slice(0, limit), additional_data: { next_cursor: null } });
    }
    const one = /^\/api\/v2\/persons\/(\d+)$/.exec(call.path);
    if (one) {
      const person = state.persons.get(Number(one[1]));
      if (!person || person.is_deleted) return error(404, 'Person not found');
      if (call.method === 'GET') return ok({ success: true, data: person });
      if (call.method === 'DELETE') {
        person.is_deleted = true;
        return ok({ success: true, data: { id: person.id } });
      }
    }
    return error(404, 'Unknown method .');
  });
  let nextId = 9_001;
  return {
    ...server,
    state,
    addPerson(email, name = 'Subject') {
      const now = new Date().toISOString().replace('T', ' ').slice(0, 19);
      const person: PipedrivePerson = {
        id: nextId++,
        name,
        emails: [{ value: email, primary: true, label: 'work' }],
        phones: [],
        is_deleted: false,
        add_time: now,
        update_time: now,
        visible_to: 3,
        owner_id: 1,
      };
      state.persons.set(person.id, person);
      return person;
    },
  };
}
