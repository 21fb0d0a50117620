import { chargebeeBaseUrl, type ChargebeeConfig } from '@shared/integrations/chargebee';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { collectPages, deletionFailure, statusFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/**
 * Chargebee errors: `{message, type, api_error_code, http_status_code}`. A 429
 * (`api_request_limit_exceeded`) waits Retry-After, else a minute (Chargebee's limits are per minute).
 */
const style: VendorStyle = {
  vendor: 'Chargebee',
  fallbackWaitMs: 60_000,
  message: (body) => str((body as { message?: unknown } | undefined)?.message),
};

/** Customers a list page holds (Chargebee allows 1 to 100). */
const PAGE_SIZE = 100;
const MAX_PAGES = 10;

/** Chargebee API v2 of one site with a full-access API key (Basic "{api key}:"), as the official SDK sends it. */
export function chargebeeClient(http: HttpClient, config: ChargebeeConfig, apiKey: string) {
  const base = `${chargebeeBaseUrl(config)}/api/v2`;
  const headers = {
    authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`,
    accept: 'application/json',
  };
  return {
    /** One page of the customers with this email (`email[is]`). */
    listByEmail: (email: string, offset?: string) =>
      http.request({
        method: 'GET',
        url: `${base}/customers?${new URLSearchParams({ 'email[is]': email, limit: String(PAGE_SIZE), ...(offset ? { offset } : {}) })}`,
        headers,
      }),
    retrieve: (id: string) =>
      http.request({ method: 'GET', url: `${base}/customers/${encodeURIComponent(id)}`, headers }),
    /**
     * Schedules the customer's deletion with its subscriptions, invoices, credit notes and
     * transactions; `delete_payment_method=true` removes its payment methods from the gateway too.
     */
    delete: (id: string) =>
      http.request({
        method: 'POST',
        url: `${base}/customers/${encodeURIComponent(id)}/delete`,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'delete_payment_method=true',
      }),
    listOne: () => http.request({ method: 'GET', url: `${base}/customers?limit=1`, headers }),
  };
}

const clientFor = (ctx: Pick<DriverContext<ChargebeeConfig>, 'http' | 'config' | 'secrets'>) =>
  chargebeeClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

interface ListBody {
  list?: { customer?: { id?: unknown; email?: unknown } }[];
  next_offset?: unknown;
}

/** The customers of a page whose email is the identifier (ignoring case). */
const matchingIds = (body: ListBody | undefined, email: string) =>
  (body?.list ?? [])
    .map((entry) => entry.customer)
    .filter((c) => typeof c?.email === 'string' && c.email.toLowerCase() === email.toLowerCase())
    .map((c) => str(c?.id))
    .filter((id): id is string => Boolean(id));

async function findCustomers(ctx: DriverContext<ChargebeeConfig>): Promise<string[] | Outcome> {
  if (ctx.config.identifierType === 'customer_id') return [ctx.identifier.trim()];
  const client = clientFor(ctx);
  return collectPages<string>(
    MAX_PAGES,
    `Chargebee lists more than ${MAX_PAGES * PAGE_SIZE} customers with this email; delete by customer id instead`,
    async (offset) => {
      const response = await client.listByEmail(ctx.identifier, offset);
      if (!isSuccessStatus(response.status)) return { failure: deletionFailure(style, response, ctx.now) };
      const body = jsonBody(response) as ListBody | undefined;
      return { ids: matchingIds(body, ctx.identifier), next: str(body?.next_offset) };
    },
  );
}

/**
 * Find the customers (by email, or the id), ask Chargebee to delete each with its payment
 * methods (Chargebee schedules it and deletes it "in a few minutes"), then retrieve each until
 * Chargebee answers 404: that is the proof.
 */
export const chargebeeDriver: Driver<ChargebeeConfig> = {
  type: 'CHARGEBEE',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'minutes (Chargebee deletes a scheduled customer within a few minutes)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const ids = await findCustomers(ctx);
    if (!Array.isArray(ids)) return ids;
    const scheduled: string[] = [];
    for (const id of ids) {
      const deleted = await client.delete(id);
      if (deleted.status === 404) continue; // no such customer, or deleted already
      if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
      scheduled.push(id);
    }
    if (scheduled.length === 0)
      return {
        kind: 'success',
        message: 'Chargebee has no such customer: nothing to delete',
        evidence: { customersFound: 0 },
      };
    return {
      kind: 'accepted',
      trackingId: scheduled.join(','),
      status: 'PROCESSING',
      message: `Chargebee scheduled the deletion of ${scheduled.length} customer(s) with their payment methods`,
    };
  },

  async checkStatus(ctx) {
    const ids = (ctx.trackingId ?? '').split(',').filter(Boolean);
    const client = clientFor(ctx);
    const remaining: string[] = [];
    for (const id of ids) {
      const after = await client.retrieve(id);
      if (after.status === 404) continue;
      if (!isSuccessStatus(after.status)) return statusFailure(style, after, ctx.now);
      remaining.push(id);
    }
    if (remaining.length > 0)
      return {
        kind: 'pending',
        status: 'PROCESSING',
        message: `Chargebee still returns ${remaining.length} of the customer(s) scheduled for deletion`,
      };
    return {
      kind: 'success',
      message: `Chargebee deleted ${ids.length} customer(s); retrieving them now answers 404`,
      evidence: { customerIds: ids, verifiedGone: true, lookupAfterDelete: 'HTTP 404' },
    };
  },

  testConnection: (ctx) => testWith(style, () => clientFor(ctx).listOne(), 'Chargebee accepted the API key'),
};
