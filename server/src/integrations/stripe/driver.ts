import { STRIPE_API_HOST, STRIPE_API_VERSION, type StripeConfig } from '@shared/integrations';
import type { HttpClient } from '../runtime/http-client';
import { isSuccessStatus } from '../runtime/http-client';
import { collectPages, deletionFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

const style: VendorStyle = {
  vendor: 'Stripe',
  message: (body) => str((body as { error?: { message?: unknown } } | undefined)?.error?.message),
};

/** Stripe REST API with a secret or restricted key (Bearer), pinned to one API version. */
export function stripeClient(http: HttpClient, config: StripeConfig, secretKey: string) {
  const base = `${config.baseUrl ?? STRIPE_API_HOST}/v1/customers`;
  const headers = {
    authorization: `Bearer ${secretKey}`,
    'stripe-version': STRIPE_API_VERSION,
    accept: 'application/json',
  };
  return {
    /** One page (100) of the customers whose email is exactly this one (Stripe's list filter; case-sensitive). */
    listByEmail: (email: string, startingAfter?: string) =>
      http.request({
        method: 'GET',
        url: `${base}?${new URLSearchParams({ email, limit: '100', ...(startingAfter ? { starting_after: startingAfter } : {}) })}`,
        headers,
      }),
    retrieve: (id: string) => http.request({ method: 'GET', url: `${base}/${encodeURIComponent(id)}`, headers }),
    del: (id: string) => http.request({ method: 'DELETE', url: `${base}/${encodeURIComponent(id)}`, headers }),
    listOne: () => http.request({ method: 'GET', url: `${base}?limit=1`, headers }),
  };
}

/** Pages of 100 customers read at most for one email. */
const MAX_LIST_PAGES = 20;

const clientFor = (ctx: Pick<DriverContext<StripeConfig>, 'http' | 'config' | 'secrets'>) =>
  stripeClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/**
 * A test-mode key (sk_test_…, rk_test_…) reaches test-mode data only: nothing it finds or deletes
 * says anything about live customers. Outcomes and evidence say which mode was searched.
 */
const keyMode = (ctx: Pick<DriverContext<StripeConfig>, 'secrets'>): 'live' | 'test' =>
  /^[sr]k_test_/.test(credential(ctx, 'apiKey')) ? 'test' : 'live';
const TEST_MODE_NOTE = " (test-mode key: Stripe's live data was not searched)";

/**
 * Synchronous: find the customers (by id, or every customer with the email), delete each
 * (Stripe deletes the customer and cancels its subscriptions), then retrieve each again: Stripe
 * answers a deleted customer with `deleted: true`, which is recorded as the proof.
 */
export const stripeDriver: Driver<StripeConfig> = {
  type: 'STRIPE',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const mode = keyMode(ctx);
    const note = mode === 'test' ? TEST_MODE_NOTE : '';
    let ids: string[];
    if (ctx.config.identifierType === 'customer_id') {
      ids = [ctx.identifier];
    } else {
      // Stripe's filter is exact and case-sensitive: the email as given and in lower case (as
      // most sign-up forms store it), every page of each.
      ids = [];
      for (const email of new Set([ctx.identifier, ctx.identifier.toLowerCase()])) {
        const found = await collectPages<string>(
          MAX_LIST_PAGES,
          `More than ${MAX_LIST_PAGES * 100} Stripe customers have this email; delete them by customer id`,
          async (after) => {
            const response = await client.listByEmail(email, after);
            if (!isSuccessStatus(response.status)) return { failure: deletionFailure(style, response, ctx.now) };
            const list = jsonBody(response) as { data?: { id?: unknown }[]; has_more?: unknown } | undefined;
            const pageIds = (list?.data ?? []).map((c) => str(c.id)).filter((id): id is string => Boolean(id));
            return { ids: pageIds, next: list?.has_more === true ? pageIds.at(-1) : undefined };
          },
          ids,
        );
        if (!Array.isArray(found)) return found;
      }
      if (ids.length === 0)
        return {
          kind: 'success',
          message: `Stripe has no customer with this email: nothing to delete${note}`,
          evidence: { mode, customersFound: 0 },
        };
    }
    let alreadyGone = 0;
    for (const id of ids) {
      const deleted = await client.del(id);
      // 404 resource_missing: no such customer (never existed, or deleted before).
      if (deleted.status === 404) alreadyGone++;
      else if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
    }
    if (alreadyGone === ids.length && ctx.config.identifierType === 'customer_id') {
      return {
        kind: 'success',
        message: `Stripe has no such customer: nothing to delete${note}`,
        evidence: { mode, customersFound: 0 },
      };
    }
    const proof: Record<string, string> = {};
    for (const id of ids) {
      const after = await client.retrieve(id);
      const body = jsonBody(after) as { deleted?: unknown } | undefined;
      if (after.status === 404 || (isSuccessStatus(after.status) && body?.deleted === true))
        proof[id] = after.status === 404 ? 'not found' : 'deleted: true';
      else if (!isSuccessStatus(after.status)) return deletionFailure(style, after, ctx.now);
      else
        return { kind: 'retry', reason: `Stripe still returns customer ${id} without deleted: true after the delete` };
    }
    return {
      kind: 'success',
      message: `Deleted ${ids.length - alreadyGone} Stripe customer(s); Stripe reports each as deleted${note}`,
      evidence: { mode, customersFound: ids.length, customerIds: ids, verifiedGone: true, lookupAfterDelete: proof },
    };
  },

  testConnection: (ctx) =>
    testWith(
      style,
      () => clientFor(ctx).listOne(),
      keyMode(ctx) === 'test'
        ? 'Stripe accepted the key and it may read customers; it is a test-mode key, so deletions reach test-mode data only, never live customers'
        : 'Stripe accepted the key and it may read customers',
    ),
};
