import { randomBytes } from 'node:crypto';
import { bearerOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface StripeCustomer {
  id: string;
  object: 'customer';
  email: string | null;
  name: string | null;
  created: number;
  livemode: boolean;
  metadata: Record<string, string>;
}

export interface StripeFakeState {
  secretKeys: Set<string>;
  customers: Map<string, StripeCustomer>;
  deleted: Set<string>;
  /** The next N requests are answered 429 (Stripe sends no Retry-After; its SDK backs off). */
  throttleNext: number;
}

const stripeError = (status: number, type: string, message: string, code?: string) => ({
  status,
  body: { error: { type, message, ...(code ? { code } : {}) } },
});

/**
 * Stripe customers: GET /v1/customers?email=&limit= (exact email), GET /v1/customers/{id}
 * (a deleted customer is `{id, object, deleted: true}`), DELETE /v1/customers/{id} →
 * `{id, object: 'customer', deleted: true}`; 404 `resource_missing`. Bearer secret key.
 */
export async function startStripeFake(): Promise<
  FakeVendor<StripeFakeState> & { addCustomer(email: string | null): StripeCustomer }
> {
  const state: StripeFakeState = { secretKeys: new Set(), customers: new Map(), deleted: new Set(), throttleNext: 0 };
  const server = await startFakeServer((call) => {
    const key = bearerOf(call);
    if (!key || !state.secretKeys.has(key))
      return stripeError(401, 'invalid_request_error', `Invalid API Key provided: ${(key ?? '').slice(0, 8)}********`);
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        ...stripeError(
          429,
          'invalid_request_error',
          'Request rate limit exceeded. You can make up to 100 requests per second.',
          'rate_limit',
        ),
        headers: { 'stripe-should-retry': 'true' },
      };
    }
    if (call.path === '/v1/customers' && call.method === 'GET') {
      const email = call.query.get('email');
      const limit = Number(call.query.get('limit') ?? 10);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        return stripeError(400, 'invalid_request_error', 'Invalid integer: limit', 'parameter_invalid_integer');
      // Exact, case-sensitive email filter; pages of `limit` after the customer `starting_after` names.
      const matching = [...state.customers.values()].filter((c) => email === null || c.email === email);
      const after = call.query.get('starting_after');
      const from = after === null ? 0 : matching.findIndex((c) => c.id === after) + 1;
      if (after !== null && from === 0)
        return stripeError(400, 'invalid_request_error', `No such customer: '${after}'`, 'resource_missing');
      const rest = matching.slice(from);
      return {
        status: 200,
        body: { object: 'list', url: '/v1/customers', has_more: rest.length > limit, data: rest.slice(0, limit) },
      };
    }
    const one = /^\/v1\/customers\/([^/]+)$/.exec(call.path);
    if (one) {
      const id = decodeURIComponent(one[1]!);
      if (call.method === 'GET') {
        if (state.deleted.has(id)) return { status: 200, body: { id, object: 'customer', deleted: true } };
        const customer = state.customers.get(id);
        return customer
          ? { status: 200, body: customer }
          : stripeError(404, 'invalid_request_error', `No such customer: '${id}'`, 'resource_missing');
      }
      if (call.method === 'DELETE') {
        if (!state.customers.has(id))
          return stripeError(404, 'invalid_request_error', `No such customer: '${id}'`, 'resource_missing');
        state.customers.delete(id);
        state.deleted.add(id);
        return { status: 200, body: { id, object: 'customer', deleted: true } };
      }
    }
    return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${call.method}: ${call.path}).`);
  });
  return {
    ...server,
    state,
    addCustomer(email) {
      const customer: StripeCustomer = {
        id: `cus_${randomBytes(7).toString('hex')}`,
        object: 'customer',
        email,
        name: null,
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        metadata: {},
      };
      state.customers.set(customer.id, customer);
      return customer;
    },
  };
}
