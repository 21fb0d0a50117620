import type { GoogleAnalyticsConfig } from '@shared/integrations';
import { isSuccessStatus, outcomeForHttpError } from '../runtime/http-client';
import type { Driver, DriverContext } from '../types';
import { credential, jsonBody, queuedByRateLimit } from '../runtime/vendor-http';
import { googleAnalyticsClient, googleError } from './client';

// The OAuth access token was refreshed (if expired) when the destination was loaded.
const clientFor = (ctx: Pick<DriverContext<GoogleAnalyticsConfig>, 'http' | 'config' | 'secrets'>) =>
  googleAnalyticsClient(ctx.http, ctx.config, credential(ctx, 'accessToken'));

/**
 * submitUserDeletion answers only with deletionRequestTime and offers no status: Google then
 * removes the user's data up to that time from reports within about 72 hours and from its
 * servers in a later purge (about two months), so accepted counts as done and says so.
 */
export const GA4_DELETION_TIMELINE =
  'Google removes it from reports within about 72 hours and from its servers in the next purge, about two months later';

export const googleAnalyticsDriver: Driver<GoogleAnalyticsConfig> = {
  type: 'GOOGLE_ANALYTICS',
  async: false,
  canCancel: () => false,
  expectedCompletion:
    "accepted in seconds; gone from reports within about 72 hours, purged from Google's servers about two months later",

  async requestDeletion(ctx) {
    const response = await clientFor(ctx).submitUserDeletion(ctx.identifier);
    // Quota exhausted (RESOURCE_EXHAUSTED): wait for it to renew rather than spend attempts.
    if (response.status === 429) return queuedByRateLimit('Google Analytics', response, ctx.now, 60_000);
    if (!isSuccessStatus(response.status)) {
      const outcome = outcomeForHttpError(response);
      const reason = googleError(response);
      if (outcome.kind === 'retry') return { ...outcome, reason };
      return {
        kind: 'failed',
        reason:
          response.status === 401 ? `Google rejected the access token (${reason}); reconnect the account` : reason,
      };
    }
    const deletionRequestTime = (jsonBody(response) as { deletionRequestTime?: unknown } | undefined)
      ?.deletionRequestTime;
    return {
      kind: 'success',
      message: `GA4 property ${ctx.config.propertyId} accepted the user deletion (${ctx.config.identifierType}) of data${typeof deletionRequestTime === 'string' ? ` up to ${deletionRequestTime}` : ''}; ${GA4_DELETION_TIMELINE}`,
      evidence: {
        propertyId: ctx.config.propertyId,
        identifierType: ctx.config.identifierType,
        deletionRequestTime: deletionRequestTime ?? null,
        removedFromReports: 'within about 72 hours',
        purgedFromServers: 'in a later purge, about two months after the request',
      },
    };
  },

  async testConnection(ctx) {
    try {
      const response = await clientFor(ctx).getProperty();
      if (isSuccessStatus(response.status))
        return { ok: true, message: `The account can read GA4 property ${ctx.config.propertyId}` };
      return { ok: false, message: googleError(response) };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
