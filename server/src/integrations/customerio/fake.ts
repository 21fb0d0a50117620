import { randomBytes } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface CustomerioPerson {
  cio_id: string;
  id: string | null;
  email: string | null;
}

export interface CustomerioFakeState {
  siteId: string;
  trackApiKey: string;
  appApiKeys: Set<string>;
  people: Map<string, CustomerioPerson>;
  /** cio_id -> when the Track API has processed its deletion. */
  deleting: Map<string, number>;
  deleteLagMs: number;
  throttleNext: number;
  /** Identifiers (id, email) of suppressed people: adding them again is ignored. */
  suppressed: Set<string>;
}

/**
 * Customer.io. Track API (Basic site id : API key) under /api/v1: DELETE /customers/{identifier}
 * (id, email or cio_<cio_id>) and POST /customers/{identifier}/suppress → 200 {}, processed after a
 * lag; PUT /customers/{id} (identify) adds a person again unless suppressed. App API (Bearer) under /v1:
 * GET /customers?email= → {results: [{id, email, cio_id}]}, GET /customers/{id}/attributes?id_type=
 * → {customer: {id, identifiers, attributes}} or 404.
 */
export async function startCustomerioFake(
  options: { deleteLagMs?: number } = {},
): Promise<FakeVendor<CustomerioFakeState> & { addPerson(id: string | null, email: string | null): CustomerioPerson }> {
  const state: CustomerioFakeState = {
    siteId: 'site-0123',
    trackApiKey: 'track-key-0123456789',
    appApiKeys: new Set(),
    people: new Map(),
    deleting: new Map(),
    deleteLagMs: options.deleteLagMs ?? 50,
    throttleNext: 0,
    suppressed: new Set(),
  };
  const addPerson = (id: string | null, email: string | null): CustomerioPerson => {
    const person: CustomerioPerson = { cio_id: randomBytes(6).toString('hex'), id, email };
    state.people.set(person.cio_id, person);
    return person;
  };
  const find = (identifier: string, idType: string) =>
    [...state.people.values()].find((p) =>
      idType === 'cio_id' ? p.cio_id === identifier : idType === 'email' ? p.email === identifier : p.id === identifier,
    );
  const server = await startFakeServer((call) => {
    for (const [cioId, at] of state.deleting) if (at <= call.at) state.people.delete(cioId);
    if (call.path.startsWith('/api/v1/')) {
      const expected = `Basic ${Buffer.from(`${state.siteId}:${state.trackApiKey}`).toString('base64')}`;
      if (call.headers.authorization !== expected)
        return { status: 401, body: { meta: { error: 'Unauthorized request' } } };
      const match = /^\/api\/v1\/customers\/([^/]+)(\/suppress)?$/.exec(call.path);
      const identifier = match ? decodeURIComponent(match[1]!) : '';
      const person = identifier.startsWith('cio_')
        ? find(identifier.slice(4), 'cio_id')
        : (find(identifier, 'id') ?? find(identifier, 'email'));
      if (match && (call.method === 'DELETE' || (call.method === 'POST' && match[2]))) {
        if (person && !state.deleting.has(person.cio_id))
          state.deleting.set(person.cio_id, call.at + state.deleteLagMs);
        // "both the person's email and ID are suppressed" (Suppress a customer profile).
        if (match[2])
          for (const id of person ? [person.id, person.email] : [identifier]) if (id) state.suppressed.add(id);
        return { status: 200, body: {} };
      }
      // Identify (add or update a person by id): recreates a deleted person, ignored for a suppressed one.
      if (match && !match[2] && call.method === 'PUT') {
        if (state.suppressed.has(identifier)) return { status: 200, body: {} };
        const attributes = (jsonOf(call) ?? {}) as { email?: unknown };
        const email = typeof attributes.email === 'string' ? attributes.email : null;
        if (person && !state.deleting.has(person.cio_id)) person.email = email ?? person.email;
        else if (!(email && state.suppressed.has(email))) addPerson(identifier, email);
        return { status: 200, body: {} };
      }
      return { status: 404, body: { meta: { error: 'Not found' } } };
    }
    const key = bearerOf(call);
    if (!key || !state.appApiKeys.has(key))
      return {
        status: 401,
        body: { errors: [{ detail: 'Unauthorized request: provide a valid App API key', status: '401' }] },
      };
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        status: 429,
        headers: { 'retry-after': '2' },
        body: { errors: [{ detail: 'Too many requests', status: '429' }] },
      };
    }
    if (call.path === '/v1/customers' && call.method === 'GET') {
      const email = call.query.get('email');
      if (!email) return { status: 400, body: { errors: [{ detail: 'email is required', status: '400' }] } };
      return {
        status: 200,
        body: {
          results: [...state.people.values()]
            .filter((p) => p.email === email)
            .map((p) => ({ id: p.id, email: p.email, cio_id: p.cio_id })),
        },
      };
    }
    const attrs = /^\/v1\/customers\/([^/]+)\/attributes$/.exec(call.path);
    if (attrs && call.method === 'GET') {
      const idType = call.query.get('id_type') ?? 'id';
      if (!['id', 'email', 'cio_id'].includes(idType))
        return { status: 400, body: { errors: [{ detail: 'id_type must be id, email or cio_id', status: '400' }] } };
      const person = find(decodeURIComponent(attrs[1]!), idType);
      if (!person) return { status: 404, body: { errors: [{ detail: 'Customer not found', status: '404' }] } };
      return {
        status: 200,
        body: {
          customer: {
            id: person.id,
            identifiers: { id: person.id, email: person.email, cio_id: person.cio_id },
            attributes: { email: person.email },
          },
        },
      };
    }
    return { status: 404, body: { errors: [{ detail: 'Not found', status: '404' }] } };
  });
  return { ...server, state, addPerson };
}
