import { shopifyGraphqlUrl, type ShopifyConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient, type HttpResponse } from '../runtime/http-client';
import { deletionFailure, str, vendorMessage, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Shopify errors: `{errors: "…"}` (HTTP level) or `{errors: [{message, extensions: {code}}]}` (GraphQL). */
const style: VendorStyle = {
  vendor: 'Shopify',
  message: (body) => {
    const errors = (body as { errors?: unknown } | undefined)?.errors;
    if (typeof errors === 'string') return errors;
    const first = Array.isArray(errors) ? (errors[0] as { message?: unknown } | undefined) : undefined;
    return str(first?.message);
  },
};

/** The customers with an email (Shopify's search syntax in `query`); a page of 50 is more than one shop holds. */
export const CUSTOMERS_BY_EMAIL = `query CustomersByEmail($query: String!, $first: Int!) {
  customers(first: $first, query: $query) {
    nodes {
      id
      email
    }
    pageInfo {
      hasNextPage
    }
  }
}`;

/** Shopify's documented privacy erasure of one customer, processed later by Shopify. */
export const REQUEST_DATA_ERASURE = `mutation RequestDataErasure($customerId: ID!) {
  customerRequestDataErasure(customerId: $customerId) {
    customerId
    userErrors {
      field
      message
      code
    }
  }
}`;

const PAGE = 50;

/** A search term matching the email exactly: quoted, with backslashes and quotes escaped. */
export const emailSearch = (email: string) => `email:"${email.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** A customer id as Shopify's GraphQL ID, from a number or a gid; undefined for anything else. */
export function customerGid(identifier: string): string | undefined {
  const id = identifier.trim();
  if (/^\d{1,20}$/.test(id)) return `gid://shopify/Customer/${id}`;
  return /^gid:\/\/shopify\/Customer\/\d{1,20}$/.test(id) ? id : undefined;
}

interface GraphqlAnswer {
  response: HttpResponse;
  data?: Record<string, unknown>;
  /** Why the call did not answer: HTTP failure, throttling or a GraphQL error. */
  failure?: Outcome;
}

/**
 * The wait a cost-throttled answer asks for: the points the query needs beyond those available,
 * at the restore rate (extensions.cost.throttleStatus), at least a second.
 */
function throttleWaitMs(body: unknown): number {
  const cost = (body as { extensions?: { cost?: Record<string, unknown> } } | undefined)?.extensions?.cost;
  const status = cost?.throttleStatus as { currentlyAvailable?: unknown; restoreRate?: unknown } | undefined;
  const requested = Number(cost?.requestedQueryCost);
  const available = Number(status?.currentlyAvailable);
  const rate = Number(status?.restoreRate);
  if (![requested, available, rate].every(Number.isFinite) || rate <= 0) return 1_000;
  return Math.max(1_000, Math.ceil(((requested - available) / rate) * 1000));
}

/** Shopify's GraphQL Admin API with an Admin API access token (`X-Shopify-Access-Token`). */
export function shopifyClient(http: HttpClient, config: ShopifyConfig, accessToken: string) {
  const url = shopifyGraphqlUrl(config);
  // The headers @shopify/admin-api-client sends.
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    'x-shopify-access-token': accessToken,
  };
  return async (query: string, variables: Record<string, unknown>, now: Date): Promise<GraphqlAnswer> => {
    const response = await http.request({ method: 'POST', url, headers, body: JSON.stringify({ query, variables }) });
    if (!isSuccessStatus(response.status)) return { response, failure: deletionFailure(style, response, now) };
    const body = jsonBody(response) as
      { data?: Record<string, unknown>; errors?: { message?: unknown; extensions?: { code?: unknown } }[] } | undefined;
    const errors = Array.isArray(body?.errors) ? body.errors : [];
    if (errors.some((e) => e.extensions?.code === 'THROTTLED')) {
      const waitMs = throttleWaitMs(body);
      return {
        response,
        failure: {
          kind: 'deferred',
          until: new Date(now.getTime() + waitMs),
          message: `Shopify query cost throttled (THROTTLED); queued for ${Math.ceil(waitMs / 1000)} s`,
        },
      };
    }
    if (errors.length > 0 || !body?.data) {
      const said = vendorMessage(style, response);
      const denied = errors.some((e) => e.extensions?.code === 'ACCESS_DENIED');
      return {
        response,
        failure: { kind: 'failed', reason: denied ? `Shopify refused the credentials: ${said}` : `Shopify: ${said}` },
      };
    }
    return { response, data: body.data };
  };
}

const clientFor = (ctx: Pick<DriverContext<ShopifyConfig>, 'http' | 'config' | 'secrets'>) =>
  shopifyClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

type Client = ReturnType<typeof shopifyClient>;

/** The ids of the customers whose email is the identifier (ignoring case), or why the search failed. */
async function customersByEmail(client: Client, email: string, now: Date): Promise<string[] | Outcome> {
  const answer = await client(CUSTOMERS_BY_EMAIL, { query: emailSearch(email), first: PAGE }, now);
  if (answer.failure) return answer.failure;
  const customers = answer.data!.customers as
    { nodes?: { id?: unknown; email?: unknown }[]; pageInfo?: { hasNextPage?: unknown } } | undefined;
  if (customers?.pageInfo?.hasNextPage === true)
    return { kind: 'failed', reason: `Shopify found more than ${PAGE} customers for the email; none was erased` };
  // The search is Shopify's; only customers whose email is exactly the identifier are erased.
  return (customers?.nodes ?? [])
    .filter((c) => typeof c.email === 'string' && c.email.toLowerCase() === email.toLowerCase())
    .map((c) => str(c.id))
    .filter((id): id is string => Boolean(id));
}

/**
 * Find the customers (by email, or the customer id), then request Shopify's privacy erasure of
 * each. Shopify erases later (orders of the last 180 days hold it back) and offers no status to
 * poll, so an accepted request is the outcome: SUCCESS records the request, not a verified erasure.
 */
export const shopifyDriver: Driver<ShopifyConfig> = {
  type: 'SHOPIFY',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'accepted in seconds; Shopify erases later (held up to 180 days after a recent order)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    let ids: string[];
    if (ctx.config.identifierType === 'email') {
      const found = await customersByEmail(client, ctx.identifier, ctx.now);
      if (!Array.isArray(found)) return found;
      ids = found;
    } else {
      const gid = customerGid(ctx.identifier);
      if (!gid)
        return {
          kind: 'failed',
          reason: 'The identifier is not a Shopify customer id (a number or gid://shopify/Customer/…)',
        };
      ids = [gid];
    }
    const requested: string[] = [];
    for (const customerId of ids) {
      const answer = await client(REQUEST_DATA_ERASURE, { customerId }, ctx.now);
      if (answer.failure) return answer.failure;
      const payload = answer.data!.customerRequestDataErasure as
        { customerId?: unknown; userErrors?: { message?: unknown; code?: unknown }[] } | undefined;
      const userErrors = payload?.userErrors ?? [];
      // An id that names no customer (customer id requests) is nothing to erase.
      if (userErrors.length > 0 && userErrors.every((e) => e.code === 'DOES_NOT_EXIST')) continue;
      if (userErrors.length > 0)
        return {
          kind: 'failed',
          reason: `Shopify refused the erasure: ${userErrors.map((e) => `${str(e.code) ?? 'error'}: ${str(e.message) ?? ''}`).join('; ')}`,
        };
      requested.push(customerId);
    }
    if (requested.length === 0)
      return {
        kind: 'success',
        message: 'Shopify has no such customer: nothing to erase',
        evidence: { customersFound: 0 },
      };
    return {
      kind: 'success',
      message: `Shopify accepted the erasure of ${requested.length} customer(s); Shopify erases their personal data later and reports no status`,
      evidence: {
        customersFound: requested.length,
        customerIds: requested,
        erasureRequested: true,
        verifiedGone: false,
      },
    };
  },

  // A search no customer matches proves the token may read customers, touching no one.
  async testConnection(ctx) {
    try {
      const answer = await customersByEmail(clientFor(ctx), 'connection-test@example.invalid', ctx.now);
      if (Array.isArray(answer)) return { ok: true, message: 'Shopify accepted the access token' };
      return {
        ok: false,
        message: answer.kind === 'failed' ? answer.reason : 'Shopify is throttling; try again shortly',
      };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
