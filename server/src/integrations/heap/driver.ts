import type { HeapConfig } from '@shared/integrations/heap';
import { isSuccessStatus } from '../runtime/http-client';
import { connectionVerdict, deletionFailure, statusFailure, str } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';
import { accessToken, heapClient, heapStyle as style } from './client';

const clientFor = (ctx: Pick<DriverContext<HeapConfig>, 'http' | 'config' | 'secrets'>) =>
  heapClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/** The end of a deletion request as Heap's API words it (SOURCES.md): anything else is still running. */
const DONE = ['complete', 'completed'];
const FAILED = ['failed'];

function statusOutcome(body: unknown, deletionRequestId: string): Outcome {
  const status = (str((body as { status?: unknown } | undefined)?.status) ?? '').toLowerCase();
  if (DONE.includes(status))
    return {
      kind: 'success',
      message: `Heap deletion request ${deletionRequestId} is ${status}`,
      evidence: { heapDeletionRequestId: deletionRequestId, heapStatus: status },
    };
  if (FAILED.includes(status))
    return {
      kind: 'failed',
      reason: `Heap reports deletion request ${deletionRequestId} as ${status}; retry to ask again`,
    };
  // pending, or a status Heap adds later: keep checking rather than guess an end.
  return {
    kind: 'pending',
    status: 'PROCESSING',
    message: `Heap deletion request ${deletionRequestId} is ${status || '(no status given)'}`,
  };
}

/**
 * Heap's User Deletion API: a temporary auth token (app id + API key), a deletion request for the
 * user identity or Heap user id across every environment of the account, then its status polled
 * until Heap reports it complete. Heap offers no lookup of a user, so the status is the proof.
 */
export const heapDriver: Driver<HeapConfig> = {
  type: 'HEAP',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'days (Heap processes deletion requests in the background)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const token = await accessToken(client);
    if (typeof token !== 'string') return deletionFailure(style, token, ctx.now);
    const response = await client.requestDeletion(token, ctx.identifier);
    if (!isSuccessStatus(response.status)) return deletionFailure(style, response, ctx.now);
    const id = str((jsonBody(response) as { deletion_request_id?: unknown } | undefined)?.deletion_request_id);
    if (!id) return { kind: 'failed', reason: 'Heap accepted the deletion but returned no deletion_request_id' };
    return {
      kind: 'accepted',
      trackingId: id,
      status: 'PENDING',
      message: `Heap deletion request ${id} submitted (by ${ctx.config.identifierType})`,
    };
  },

  async checkStatus(ctx) {
    const client = clientFor(ctx);
    const token = await accessToken(client);
    if (typeof token !== 'string') return statusFailure(style, token, ctx.now);
    const response = await client.deletionStatus(token, ctx.trackingId!);
    if (!isSuccessStatus(response.status)) return statusFailure(style, response, ctx.now);
    return statusOutcome(jsonBody(response), ctx.trackingId!);
  },

  async testConnection(ctx) {
    // The token request proves the app id and API key; nothing is deleted or read.
    try {
      const token = await accessToken(clientFor(ctx));
      return typeof token === 'string'
        ? { ok: true, message: 'Heap issued an auth token for this app id and API key' }
        : connectionVerdict(style, token, '');
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
