import { bearerOf, jsonOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface HubspotContact {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export interface HubspotFakeState {
  tokens: Set<string>;
  contacts: Map<string, HubspotContact>;
  /** Emails GDPR-deleted (HubSpot blocklists them). */
  blocklist: Set<string>;
  /** The next N requests are answered 429 with this policy. */
  throttleNext: number;
  throttlePolicy: 'SECONDLY' | 'TEN_SECONDLY_ROLLING' | 'DAILY';
}

const hsError = (status: number, category: string, message: string) => ({
  status,
  body: { status: 'error', message, correlationId: '00000000-0000-4000-8000-000000000000', category },
});

/**
 * HubSpot CRM v3 contacts: POST /crm/v3/objects/contacts/gdpr-delete {objectId, idProperty?}
 * → 204 (also when there is no such contact), GET /crm/v3/objects/contacts/{id}?idProperty=
 * → the contact or 404, GET /crm/v3/objects/contacts?limit= → a page. Bearer token.
 */
export async function startHubspotFake(): Promise<
  FakeVendor<HubspotFakeState> & { addContact(email: string): HubspotContact }
> {
  const state: HubspotFakeState = {
    tokens: new Set(),
    contacts: new Map(),
    blocklist: new Set(),
    throttleNext: 0,
    throttlePolicy: 'TEN_SECONDLY_ROLLING',
  };
  const find = (id: string, idProperty: string | null) =>
    [...state.contacts.values()].find((c) => (idProperty === 'email' ? c.properties.email === id : c.id === id));
  const view = (c: HubspotContact) => ({
    id: c.id,
    properties: c.properties,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    archived: c.archived,
  });
  const server = await startFakeServer((call) => {
    const token = bearerOf(call);
    if (!token || !state.tokens.has(token))
      return hsError(
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      );
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        status: 429,
        headers: {
          'x-hubspot-ratelimit-interval-milliseconds': '10000',
          'x-hubspot-ratelimit-max': '100',
          'x-hubspot-ratelimit-remaining': '0',
        },
        body: {
          status: 'error',
          message: 'You have reached your ten_secondly_rolling limit.',
          errorType: 'RATE_LIMIT',
          correlationId: '00000000-0000-4000-8000-000000000000',
          policyName: state.throttlePolicy,
        },
      };
    }
    if (call.path === '/crm/v3/objects/contacts/gdpr-delete' && call.method === 'POST') {
      const body = jsonOf(call) as { objectId?: unknown; idProperty?: unknown } | undefined;
      if (typeof body?.objectId !== 'string' || !body.objectId)
        return hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1: objectId is required');
      if (body.idProperty !== undefined && body.idProperty !== 'email')
        return hsError(400, 'VALIDATION_ERROR', `Property "${String(body.idProperty)}" is not a unique identifier`);
      const contact = find(body.objectId, (body.idProperty as string | undefined) ?? null);
      if (contact) {
        state.contacts.delete(contact.id);
        if (contact.properties.email) state.blocklist.add(contact.properties.email);
      } else if (body.idProperty === 'email') {
        state.blocklist.add(body.objectId);
      }
      return { status: 204 };
    }
    if (call.path === '/crm/v3/objects/contacts' && call.method === 'GET') {
      const limit = Number(call.query.get('limit') ?? 10);
      return { status: 200, body: { results: [...state.contacts.values()].slice(0, limit).map(view) } };
    }
    const one = /^\/crm\/v3\/objects\/contacts\/([^/]+)$/.exec(call.path);
    if (one && call.method === 'GET') {
      const contact = find(decodeURIComponent(one[1]!), call.query.get('idProperty'));
      return contact
        ? { status: 200, body: view(contact) }
        : {
            status: 404,
            body: {
              status: 'error',
              message: 'Object not found.',
              correlationId: '00000000-0000-4000-8000-000000000000',
              category: 'OBJECT_NOT_FOUND',
            },
          };
    }
    return hsError(404, 'OBJECT_NOT_FOUND', 'Not found');
  });
  let nextId = 51;
  return {
    ...server,
    state,
    addContact(email) {
      const now = new Date().toISOString();
      const contact: HubspotContact = {
        id: String(nextId++),
        properties: { email, hs_object_id: null },
        createdAt: now,
        updatedAt: now,
        archived: false,
      };
      contact.properties.hs_object_id = contact.id;
      state.contacts.set(contact.id, contact);
      return contact;
    },
  };
}
