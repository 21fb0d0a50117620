import { customerioUrls, type CustomerioConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { deletionFailure, statusFailure, str, vendorMessage, type VendorStyle } from '../saas';
import type { Driver, DriverContext } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Customer.io errors: `{meta: {error}}` (Track API) or `{errors: [{detail}]}` (App API). */
const style: VendorStyle = {
  vendor: 'Customer.io',
  message: (body) => {
    const b = body as { meta?: { error?: unknown }; errors?: { detail?: unknown; message?: unknown }[] } | undefined;
    return str(b?.meta?.error) ?? str(b?.errors?.[0]?.detail) ?? str(b?.errors?.[0]?.message);
  },
};

/**
 * Customer.io: the Track API (Basic site id : Track API key) deletes people; the App API
 * (Bearer App API key) finds them and proves they are gone.
 */
export function customerioClient(
  http: HttpClient,
  config: CustomerioConfig,
  keys: { trackApiKey: string; appApiKey: string },
) {
  const urls = customerioUrls(config);
  const track = {
    authorization: `Basic ${Buffer.from(`${config.siteId}:${keys.trackApiKey}`, 'utf8').toString('base64')}`,
    accept: 'application/json',
  };
  const app = { authorization: `Bearer ${keys.appApiKey}`, accept: 'application/json' };
  return {
    // The email as the SDK writes it: each side of the @ encoded, the @ itself kept.
    byEmail: (email: string) =>
      http.request({
        method: 'GET',
        url: `${urls.app}/customers?email=${email.split('@').map(encodeURIComponent).join('@')}`,
        headers: app,
      }),
    attributes: (id: string, idType: 'id' | 'cio_id') =>
      http.request({
        method: 'GET',
        url: `${urls.app}/customers/${encodeURIComponent(id)}/attributes?id_type=${idType}`,
        headers: app,
      }),
    /** Deletes the person (by "cio_<cio_id>", which names exactly one person); a later update can recreate them. */
    destroy: (identifier: string) =>
      http.request({
        method: 'DELETE',
        url: `${urls.track}/customers/${encodeURIComponent(identifier)}`,
        headers: track,
      }),
    /** Deletes the person and keeps their identifiers from being added again ("Suppress a customer profile"). */
    suppress: (identifier: string) =>
      http.request({
        method: 'POST',
        url: `${urls.track}/customers/${encodeURIComponent(identifier)}/suppress`,
        // An empty JSON object, as customerio-node's TrackClient.suppress sends.
        headers: { ...track, 'content-type': 'application/json' },
        body: '{}',
      }),
  };
}

const clientFor = (ctx: Pick<DriverContext<CustomerioConfig>, 'http' | 'config' | 'secrets'>) =>
  customerioClient(ctx.http, ctx.config, {
    trackApiKey: credential(ctx, 'apiKey'),
    appApiKey: credential(ctx, 'secretKey'),
  });

/**
 * Find the person's cio_id (App API), suppress it (or only delete it) through the Track API
 * (processed in the background), then poll the person's attributes until the App API answers 404: the proof.
 */
export const customerioDriver: Driver<CustomerioConfig> = {
  type: 'CUSTOMERIO',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'seconds to minutes (the Track API processes deletions in the background)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    let cioIds: string[];
    if (ctx.config.identifierType === 'email') {
      const found = await client.byEmail(ctx.identifier);
      if (!isSuccessStatus(found.status)) return deletionFailure(style, found, ctx.now);
      cioIds = ((jsonBody(found) as { results?: { cio_id?: unknown }[] } | undefined)?.results ?? [])
        .map((p) => str(p.cio_id))
        .filter((id): id is string => Boolean(id));
    } else {
      const found = await client.attributes(ctx.identifier, 'id');
      if (found.status !== 404 && !isSuccessStatus(found.status)) return deletionFailure(style, found, ctx.now);
      const cioId =
        found.status === 404
          ? undefined
          : str(
              (jsonBody(found) as { customer?: { identifiers?: { cio_id?: unknown } } } | undefined)?.customer
                ?.identifiers?.cio_id,
            );
      cioIds = cioId ? [cioId] : [];
    }
    if (cioIds.length === 0)
      return {
        kind: 'success',
        message: 'Customer.io has no such person: nothing to delete',
        evidence: { peopleFound: 0 },
      };
    const suppress = ctx.config.method === 'suppress';
    for (const cioId of cioIds) {
      const sent = suppress ? await client.suppress(`cio_${cioId}`) : await client.destroy(`cio_${cioId}`);
      if (!isSuccessStatus(sent.status)) return deletionFailure(style, sent, ctx.now);
    }
    return {
      kind: 'accepted',
      trackingId: cioIds.join(','),
      status: 'PROCESSING',
      message: suppress
        ? `Customer.io accepted the suppression of ${cioIds.length} person(s): deleted, and their identifiers cannot be added again`
        : `Customer.io accepted the deletion of ${cioIds.length} person(s) (delete only: a later update can recreate them)`,
    };
  },

  async checkStatus(ctx) {
    const cioIds = (ctx.trackingId ?? '').split(',').filter(Boolean);
    const client = clientFor(ctx);
    for (const cioId of cioIds) {
      const after = await client.attributes(cioId, 'cio_id');
      if (isSuccessStatus(after.status))
        return {
          kind: 'pending',
          status: 'PROCESSING',
          message: `Customer.io still has person cio_${cioId}; the deletion is being processed`,
        };
      if (after.status !== 404) return statusFailure(style, after, ctx.now);
    }
    const suppressed = ctx.config.method === 'suppress';
    return {
      kind: 'success',
      message: `Customer.io ${suppressed ? 'suppressed' : 'deleted'} ${cioIds.length} person(s); the App API now answers 404 for each`,
      evidence: { cioIds, method: ctx.config.method, verifiedGone: true, lookupAfterDelete: 'HTTP 404' },
    };
  },

  // Reads the attributes of a person who does not exist: a 404 proves the App API key without touching anyone.
  async testConnection(ctx) {
    try {
      const response = await clientFor(ctx).attributes('connection-test', 'id');
      if (response.status === 404 || isSuccessStatus(response.status))
        return { ok: true, message: 'Customer.io accepted the App API key' };
      return { ok: false, message: `Customer.io: ${vendorMessage(style, response)}` };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
