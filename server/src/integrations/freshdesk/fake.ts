import { startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface FreshdeskContact {
  id: number;
  name: string;
  email: string | null;
  other_emails: string[];
  phone: string | null;
  active: boolean;
  deleted: boolean;
  created_at: string;
  updated_at: string;
}

export interface FreshdeskFakeState {
  /** API keys Freshdesk accepts (Basic "{key}:X"). */
  apiKeys: Set<string>;
  contacts: Map<number, FreshdeskContact>;
  /** Ids of contacts hard-deleted, with their tickets. */
  erased: number[];
  /** The next N requests are answered 429 with Retry-After. */
  throttleNext: number;
  retryAfter: string;
}

const invalidCredentials = {
  status: 401,
  body: { code: 'invalid_credentials', message: 'You have to be logged in to perform this action.' },
};

/**
 * Freshdesk API v2 contacts (the API reference at developers.freshdesk.com/api, see SOURCES.md):
 * GET /api/v2/contacts (filters `email`, `state`; `per_page` at most 100; an array, active
 * contacts unless `state=deleted`), GET /api/v2/contacts/{id} (404 once hard-deleted),
 * DELETE /api/v2/contacts/{id}/hard_delete (204; without `force=true` only a soft-deleted contact).
 * Basic auth with the API key as user name and any password; every answer carries
 * X-RateLimit-Total/-Remaining, a 429 Retry-After in seconds.
 */
export async function startFreshdeskFake(): Promise<
  FakeVendor<FreshdeskFakeState> & { addContact(email: string, options?: { deleted?: boolean }): FreshdeskContact }
> {
  const state: FreshdeskFakeState = {
    apiKeys: new Set(),
    contacts: new Map(),
    erased: [],
    throttleNext: 0,
    retryAfter: '9',
  };
  const limits = { 'x-ratelimit-total': '700', 'x-ratelimit-remaining': '699', 'x-ratelimit-used-currentrequest': '1' };
  const server = await startFakeServer((call) => {
    const header = String(call.headers.authorization ?? '');
    const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
    const key = decoded.slice(0, decoded.lastIndexOf(':'));
    if (!state.apiKeys.has(key)) return invalidCredentials;
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        status: 429,
        headers: { 'retry-after': state.retryAfter, 'x-ratelimit-total': '700', 'x-ratelimit-remaining': '0' },
        body: { code: 'rate_limit_exceeded', message: 'You have exceeded the limit of requests per minute' },
      };
    }
    if (call.path === '/api/v2/contacts' && call.method === 'GET') {
      const perPage = Number(call.query.get('per_page') ?? '30');
      if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100)
        return {
          status: 400,
          body: {
            description: 'Validation failed',
            errors: [
              {
                field: 'per_page',
                message: 'It should be a Positive Number less than or equal to 100',
                code: 'invalid_value',
              },
            ],
          },
        };
      const email = call.query.get('email')?.toLowerCase();
      const deleted = call.query.get('state') === 'deleted';
      const found = [...state.contacts.values()].filter(
        (c) => c.deleted === deleted && (email === undefined || c.email?.toLowerCase() === email),
      );
      return { status: 200, headers: limits, body: found.slice(0, perPage) };
    }
    const hard = /^\/api\/v2\/contacts\/(\d+)\/hard_delete$/.exec(call.path);
    if (hard && call.method === 'DELETE') {
      const contact = state.contacts.get(Number(hard[1]));
      if (!contact) return { status: 404, headers: limits };
      if (!contact.deleted && call.query.get('force') !== 'true')
        return {
          status: 400,
          body: {
            description: 'Validation failed',
            errors: [{ field: 'id', message: 'Contact should be deleted before hard delete', code: 'invalid_value' }],
          },
        };
      state.contacts.delete(contact.id);
      state.erased.push(contact.id);
      return { status: 204, headers: limits };
    }
    const one = /^\/api\/v2\/contacts\/(\d+)$/.exec(call.path);
    if (one && call.method === 'GET') {
      const contact = state.contacts.get(Number(one[1]));
      return contact ? { status: 200, headers: limits, body: contact } : { status: 404, headers: limits };
    }
    return { status: 404, body: { code: 'invalid_url', message: 'The requested URL is not found' } };
  });
  let nextId = 43_000_000_001;
  return {
    ...server,
    state,
    addContact(email, options = {}) {
      const now = new Date().toISOString();
      const contact: FreshdeskContact = {
        id: nextId++,
        name: 'Subject',
        email,
        other_emails: [],
        phone: null,
        active: true,
        deleted: options.deleted ?? false,
        created_at: now,
        updated_at: now,
      };
      state.contacts.set(contact.id, contact);
      return contact;
    },
  };
}
