import type { PosthogConfig } from '@shared/integrations';
import { destinationMessage, isSuccessStatus, outcomeForHttpError } from '../runtime/http-client';
import type { Driver, DriverContext } from '../types';
import { credential, jsonBody, queuedByRateLimit } from '../runtime/vendor-http';
import { personsOf, posthogClient } from './client';

function deletedAlong(config: PosthogConfig): string {
  const parts = [
    config.deleteRecordings ? 'their session recordings' : '',
    config.deleteEvents ? 'queued deletion of their events' : '',
  ].filter(Boolean);
  return parts.length ? ` with ${parts.join(' and ')}` : ' (events and recordings kept, as configured)';
}

const clientFor = (ctx: Pick<DriverContext<PosthogConfig>, 'http' | 'config' | 'secrets'>) =>
  posthogClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/**
 * Synchronous: find the person by distinct id, delete it (events queued for deletion by
 * PostHog), then look again to prove it is gone. No person is a success, recorded as such.
 */
export const posthogDriver: Driver<PosthogConfig> = {
  type: 'POSTHOG',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds for the person; events within a week (PostHog deletes events in a weekly batch)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    const found = await client.findByDistinctId(ctx.identifier);
    if (found.status === 429) return queuedByRateLimit('PostHog', found, ctx.now);
    if (!isSuccessStatus(found.status)) return outcomeForHttpError(found);
    const persons = personsOf(jsonBody(found), ctx.identifier);
    if (persons.length === 0) {
      return {
        kind: 'success',
        message: 'PostHog has no person with this distinct id: nothing to delete',
        evidence: { personFound: false },
      };
    }
    for (const person of persons) {
      const deleted = await client.deletePerson(person.id);
      if (deleted.status === 429) return queuedByRateLimit('PostHog', deleted, ctx.now);
      // 404: deleted meanwhile (a retry of this step, or someone else), which is what we want.
      if (!isSuccessStatus(deleted.status) && deleted.status !== 404) return outcomeForHttpError(deleted);
    }
    const after = await client.findByDistinctId(ctx.identifier);
    const remaining = isSuccessStatus(after.status) ? personsOf(jsonBody(after), ctx.identifier).length : null;
    if (remaining)
      return {
        kind: 'retry',
        reason: `PostHog still lists ${remaining} person(s) with this distinct id after the delete`,
      };
    return {
      kind: 'success',
      message: `Deleted ${persons.length} PostHog person(s)${deletedAlong(ctx.config)}`,
      evidence: {
        personFound: true,
        personIds: persons.map((p) => String(p.id)),
        eventsDeletionQueued: ctx.config.deleteEvents,
        recordingsDeleted: ctx.config.deleteRecordings,
        remainingAfterDelete: remaining,
      },
    };
  },

  async testConnection(ctx) {
    try {
      const response = await clientFor(ctx).listOne();
      if (isSuccessStatus(response.status))
        return { ok: true, message: 'PostHog accepted the personal API key for this project' };
      return { ok: false, message: destinationMessage(response) };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
