import { SHOPIFY_API_VERSION } from '@shared/integrations';
import { jsonOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface ShopifyCustomer {
  id: string;
  email: string | null;
  firstName: string | null;
  /** When an erasure was requested (Shopify erases later; the customer stays meanwhile). */
  erasureRequestedAt: number | null;
}

export interface ShopifyFakeState {
  accessTokens: Set<string>;
  customers: ShopifyCustomer[];
  /** The next N GraphQL calls are throttled by cost (200 with a THROTTLED error). */
  throttleNext: number;
  /** The next N calls answer HTTP 429 with Retry-After. */
  tooManyNext: number;
  nextId: number;
}

const BUCKET = { maximumAvailable: 2000, restoreRate: 100 };
const cost = (requested: number, available: number, actual: number | null) => ({
  cost: {
    requestedQueryCost: requested,
    actualQueryCost: actual,
    throttleStatus: { ...BUCKET, currentlyAvailable: available },
  },
});

/** The value of a `field:value` or `field:"value"` term of Shopify's search syntax. */
function searchTerm(query: string, field: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${field}:(?:"((?:[^"\\\\]|\\\\.)*)"|(\\S+))`).exec(query);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/**
 * Shopify GraphQL Admin API: POST /admin/api/{version}/graphql.json with `X-Shopify-Access-Token`.
 * Answers the two operations the connector sends, recognised by their root field: `customers(first,
 * query: "email:…")` (search syntax; exact email, any case) and `customerRequestDataErasure(customerId)`
 * (records the request; the customer stays, as Shopify erases later). Every answer carries
 * `extensions.cost`; a throttled call answers 200 with `errors[].extensions.code = THROTTLED`.
 */
export async function startShopifyFake(): Promise<
  FakeVendor<ShopifyFakeState> & { addCustomer(email: string | null, firstName?: string): ShopifyCustomer }
> {
  const state: ShopifyFakeState = {
    accessTokens: new Set(),
    customers: [],
    throttleNext: 0,
    tooManyNext: 0,
    nextId: 7_000_000_001,
  };
  const addCustomer = (email: string | null, firstName = 'Pat'): ShopifyCustomer => {
    const customer = { id: `gid://shopify/Customer/${state.nextId++}`, email, firstName, erasureRequestedAt: null };
    state.customers.push(customer);
    return customer;
  };
  const server = await startFakeServer((call) => {
    if (call.method !== 'POST' || call.path !== `/admin/api/${SHOPIFY_API_VERSION}/graphql.json`)
      return { status: 404, body: { errors: 'Not Found' } };
    const token = call.headers['x-shopify-access-token'];
    if (typeof token !== 'string' || !state.accessTokens.has(token))
      return {
        status: 401,
        body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' },
      };
    if (state.tooManyNext > 0) {
      state.tooManyNext--;
      return {
        status: 429,
        headers: { 'retry-after': '2.0' },
        body: {
          errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.',
        },
      };
    }
    const body = jsonOf(call) as { query?: unknown; variables?: Record<string, unknown> } | undefined;
    const query = typeof body?.query === 'string' ? body.query : '';
    const variables = body?.variables ?? {};
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        status: 200,
        body: {
          errors: [
            {
              message: 'Throttled',
              extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' },
            },
          ],
          extensions: cost(252, 52, null),
        },
      };
    }
    if (/^\s*query\b[^{]*\{\s*customers\s*\(/.test(query)) {
      const search = typeof variables.query === 'string' ? variables.query : '';
      const email = searchTerm(search, 'email');
      const first = typeof variables.first === 'number' ? variables.first : 50;
      const found = state.customers
        .filter((c) => email !== undefined && c.email?.toLowerCase() === email.toLowerCase())
        .slice(0, first);
      return {
        status: 200,
        body: {
          data: {
            customers: {
              nodes: found.map((c) => ({ id: c.id, email: c.email })),
              pageInfo: { hasNextPage: false, endCursor: null },
            },
          },
          extensions: cost(52, BUCKET.maximumAvailable - 52, 2 + found.length),
        },
      };
    }
    if (/^\s*mutation\b[^{]*\{\s*customerRequestDataErasure\s*\(/.test(query)) {
      const id = typeof variables.customerId === 'string' ? variables.customerId : '';
      const customer = state.customers.find((c) => c.id === id);
      if (customer) customer.erasureRequestedAt ??= call.at;
      return {
        status: 200,
        body: {
          data: {
            customerRequestDataErasure: customer
              ? { customerId: customer.id, userErrors: [] }
              : {
                  customerId: null,
                  userErrors: [{ field: ['customerId'], message: 'Customer does not exist', code: 'DOES_NOT_EXIST' }],
                },
          },
          extensions: cost(10, BUCKET.maximumAvailable - 10, 10),
        },
      };
    }
    return {
      status: 200,
      body: {
        errors: [
          { message: "The fake answers only the connector's two operations", extensions: { code: 'undefinedField' } },
        ],
      },
    };
  });
  return { ...server, state, addCustomer };
}
