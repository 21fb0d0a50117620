import type { BrazeConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient } from '../runtime/http-client';
import { deletionFailure, statusFailure, str, testWith, type VendorStyle } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Braze errors: `{message}` (also `{errors: [...]}`); 429 carries X-RateLimit-Reset (epoch seconds). */
const style: VendorStyle = {
  vendor: 'Braze',
  message: (body) => str((body as { message?: unknown } | undefined)?.message),
};

const LOOKUP_FIELD = { external_id: 'external_ids', braze_id: 'braze_id', email: 'email_address' } as const;

/** Braze's users/delete takes "up to 50 external_ids, user_aliases, braze_ids, email_addresses, or phone_numbers". */
export const BRAZE_DELETE_BATCH = 50;

/** Braze REST API of one instance with a REST API key (Bearer, users.delete and users.export.ids permissions). */
export function brazeClient(http: HttpClient, config: BrazeConfig, apiKey: string) {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' };
  const post = (path: string, body: unknown) =>
    http.request({ method: 'POST', url: `${config.restEndpoint}${path}`, headers, body: JSON.stringify(body) });
  return {
    /** The profiles the identifier names (braze_id and external_id only). */
    lookup: (identifier: string) => {
      const field = LOOKUP_FIELD[config.identifierType];
      return post('/users/export/ids', {
        [field]: field === 'external_ids' ? [identifier] : identifier,
        fields_to_export: ['braze_id', 'external_id'],
      });
    },
    deleteByBrazeIds: (brazeIds: string[]) => post('/users/delete', { braze_ids: brazeIds }),
  };
}

const clientFor = (ctx: Pick<DriverContext<BrazeConfig>, 'http' | 'config' | 'secrets'>) =>
  brazeClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));
const brazeIdsOf = (body: unknown) =>
  ((body as { users?: { braze_id?: unknown }[] } | undefined)?.users ?? [])
    .map((u) => str(u.braze_id))
    .filter((id): id is string => Boolean(id));

/** Looks the subject up again: no profile is the proof. */
async function proveGone(ctx: DriverContext<BrazeConfig>, brazeIds: string[]): Promise<Outcome> {
  const after = await clientFor(ctx).lookup(ctx.identifier);
  if (!isSuccessStatus(after.status)) return statusFailure(style, after, ctx.now);
  const remaining = brazeIdsOf(jsonBody(after)).filter((id) => brazeIds.includes(id));
  if (remaining.length > 0)
    return {
      kind: 'pending',
      status: 'PROCESSING',
      message: `Braze still exports ${remaining.length} of the deleted profile(s); checking again`,
    };
  return {
    kind: 'success',
    message: `Braze deleted ${brazeIds.length} user profile(s); exporting the identifier now finds none`,
    evidence: { brazeIds, verifiedGone: true, lookupAfterDelete: 'users/export/ids: no users' },
  };
}

/**
 * Look the profiles up (users/export/ids), delete them by braze_id (users/delete), then export
 * again until none is left: Braze deletes in the background, so this is polled.
 */
export const brazeDriver: Driver<BrazeConfig> = {
  type: 'BRAZE',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'minutes (Braze removes deleted profiles in the background)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const found = await client.lookup(ctx.identifier);
    if (!isSuccessStatus(found.status)) return deletionFailure(style, found, ctx.now);
    const brazeIds = brazeIdsOf(jsonBody(found));
    if (brazeIds.length === 0)
      return {
        kind: 'success',
        message: 'Braze has no user profile for this identifier: nothing to delete',
        evidence: { profilesFound: 0 },
      };
    // A refused batch ends the step; the next attempt looks up again and deletes what is left.
    let count = 0;
    for (let start = 0; start < brazeIds.length; start += BRAZE_DELETE_BATCH) {
      const batch = brazeIds.slice(start, start + BRAZE_DELETE_BATCH);
      const deleted = await client.deleteByBrazeIds(batch);
      if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
      const batchCount = (jsonBody(deleted) as { deleted?: unknown } | undefined)?.deleted;
      count += typeof batchCount === 'number' ? batchCount : batch.length;
    }
    const requests = Math.ceil(brazeIds.length / BRAZE_DELETE_BATCH);
    return {
      kind: 'accepted',
      trackingId: brazeIds.join(','),
      status: 'PROCESSING',
      message: `Braze accepted the deletion of ${count} profile(s)${requests > 1 ? ` in ${requests} requests of at most ${BRAZE_DELETE_BATCH}` : ''}`,
    };
  },

  async checkStatus(ctx) {
    return proveGone(ctx, (ctx.trackingId ?? '').split(',').filter(Boolean));
  },

  testConnection: (ctx) =>
    testWith(
      style,
      () =>
        brazeClient(ctx.http, { ...ctx.config, identifierType: 'external_id' }, credential(ctx, 'apiKey')).lookup(
          'connection-test',
        ),
      'Braze accepted the REST API key (users.export.ids)',
    ),
};
