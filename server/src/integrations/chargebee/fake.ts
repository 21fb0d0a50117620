import { randomBytes } from 'node:crypto';
import { startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface ChargebeeCustomer {
  id: string;
  email: string | null;
  first_name: string;
  auto_collection: 'on' | 'off';
  net_term_days: number;
  allow_direct_debit: boolean;
  created_at: number;
  updated_at: number;
  taxability: 'taxable' | 'exempt';
  resource_version: number;
  deleted: boolean;
  object: 'customer';
  card_status: string;
  pii_cleared: string;
  channel: string;
  preferred_currency_code: string;
  promotional_credits: number;
  refundable_credits: number;
  excess_payments: number;
  unbilled_charges: number;
  mrr: number;
}

export interface ChargebeeFakeState {
  site: string;
  apiKeys: Set<string>;
  customers: Map<string, ChargebeeCustomer>;
  /** Customer id -> when the scheduled deletion is done. */
  deleting: Map<string, number>;
  deleteLagMs: number;
  /** Customers whose payment methods were removed from the gateway with them. */
  paymentMethodsDeleted: string[];
  throttleNext: number;
  retryAfter: string;
}

const error = (status: number, message: string, apiErrorCode: string, type?: string) => ({
  status,
  body: {
    message,
    ...(type ? { type } : {}),
    api_error_code: apiErrorCode,
    error_code: apiErrorCode,
    error_msg: message,
    http_status_code: status,
  },
});
const notFound = (id: string) =>
  error(404, `Sorry, we couldn't find that resource: ${id}`, 'resource_not_found', 'invalid_request');

/**
 * Chargebee API v2 customers, as the official `chargebee` SDK calls them: GET /api/v2/customers
 * (`email[is]`, `limit` 1–100, `offset` → `{list: [{customer}], next_offset}`), GET
 * /api/v2/customers/{id} (404 `resource_not_found` once deleted), POST
 * /api/v2/customers/{id}/delete (form `delete_payment_method`; scheduled, done after a lag).
 * Basic "{api key}:"; a 429 `api_request_limit_exceeded` carries Retry-After.
 */
export async function startChargebeeFake(
  options: { deleteLagMs?: number } = {},
): Promise<FakeVendor<ChargebeeFakeState> & { addCustomer(email: string | null, id?: string): ChargebeeCustomer }> {
  const state: ChargebeeFakeState = {
    site: 'acme-test',
    apiKeys: new Set(),
    customers: new Map(),
    deleting: new Map(),
    deleteLagMs: options.deleteLagMs ?? 50,
    paymentMethodsDeleted: [],
    throttleNext: 0,
    retryAfter: '5',
  };
  const server = await startFakeServer((call) => {
    for (const [id, at] of state.deleting)
      if (at <= call.at) {
        state.customers.delete(id);
        state.deleting.delete(id);
      }
    const header = String(call.headers.authorization ?? '');
    const key = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString().replace(/:$/, '') : '';
    if (!state.apiKeys.has(key))
      return error(401, 'Sorry, authentication failed. Invalid api key', 'api_authentication_failed');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        ...error(
          429,
          'Sorry, access has been blocked temporarily due to request count exceeding acceptable limits.',
          'api_request_limit_exceeded',
        ),
        headers: { 'retry-after': state.retryAfter },
      };
    }
    if (call.path === '/api/v2/customers' && call.method === 'GET') {
      const limit = Number(call.query.get('limit') ?? '10');
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        return error(400, 'limit : The value must be between 1 and 100', 'param_wrong_value', 'invalid_request');
      const email = call.query.get('email[is]');
      const all = [...state.customers.values()].filter((c) => !c.deleted && (email === null || c.email === email));
      const start = Number(call.query.get('offset') ?? '0');
      const page = all.slice(start, start + limit);
      return {
        status: 200,
        body: {
          list: page.map((customer) => ({ customer })),
          ...(start + limit < all.length ? { next_offset: String(start + limit) } : {}),
        },
      };
    }
    const one = /^\/api\/v2\/customers\/([^/]+)(\/delete)?$/.exec(call.path);
    if (one) {
      const id = decodeURIComponent(one[1]!);
      const customer = state.customers.get(id);
      if (!customer) return notFound(id);
      if (!one[2] && call.method === 'GET') return { status: 200, body: { customer } };
      if (one[2] && call.method === 'POST') {
        const form = new URLSearchParams(call.body);
        if (customer.deleted) return notFound(id);
        customer.deleted = true;
        if (form.get('delete_payment_method') !== 'false') state.paymentMethodsDeleted.push(id);
        state.deleting.set(id, call.at + state.deleteLagMs);
        return { status: 200, body: { customer } };
      }
    }
    return error(404, "Sorry, we couldn't find that resource", 'resource_not_found', 'invalid_request');
  });
  return {
    ...server,
    state,
    addCustomer(email, id = `cb_${randomBytes(6).toString('hex')}`) {
      const now = Math.floor(Date.now() / 1000);
      const customer: ChargebeeCustomer = {
        id,
        email,
        first_name: 'Subject',
        auto_collection: 'on',
        net_term_days: 0,
        allow_direct_debit: false,
        created_at: now,
        updated_at: now,
        taxability: 'taxable',
        resource_version: now * 1000,
        deleted: false,
        object: 'customer',
        card_status: 'no_card',
        pii_cleared: 'active',
        channel: 'web',
        preferred_currency_code: 'USD',
        promotional_credits: 0,
        refundable_credits: 0,
        excess_payments: 0,
        unbilled_charges: 0,
        mrr: 0,
      };
      state.customers.set(id, customer);
      return customer;
    },
  };
}
