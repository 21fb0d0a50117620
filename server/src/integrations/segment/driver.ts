import type { SegmentConfig } from '@shared/integrations';
import { destinationMessage, isSuccessStatus, outcomeForHttpError, type HttpResponse } from '../runtime/http-client';
import { TransientError, type Driver, type DriverContext, type Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';
import { segmentClient } from './client';
import { segmentWaitMs } from './rate-limit';
import { segmentStatusOutcome } from './status';

/** A 429 on a deletion: queued until Segment's limit lifts, without using an attempt. */
function queuedBySegment(response: HttpResponse, now: Date): Outcome {
  const waitMs = segmentWaitMs(response, now.getTime());
  return {
    kind: 'deferred',
    until: new Date(now.getTime() + waitMs),
    message: `Segment rate limit (HTTP 429); queued for ${Math.ceil(waitMs / 1000)} s`,
  };
}

const clientFor = (ctx: Pick<DriverContext<SegmentConfig>, 'http' | 'config' | 'secrets'>) =>
  segmentClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

export const segmentDriver: Driver<SegmentConfig> = {
  type: 'SEGMENT',
  async: true,
  // DELETE /regulations/{regulateId} withdraws a regulation while it is INITIALIZED.
  canCancel: () => true,
  expectedCompletion: 'days, up to 30 days (Segment deletes in its systems, then forwards to destinations)',

  async requestDeletion(ctx) {
    const response = await clientFor(ctx).createRegulation(ctx.identifier);
    if (response.status === 429) return queuedBySegment(response, ctx.now);
    if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
    const regulateId = (jsonBody(response) as { data?: { regulateId?: unknown } } | undefined)?.data?.regulateId;
    if (typeof regulateId !== 'string' || regulateId === '')
      return { kind: 'failed', reason: 'Segment accepted the regulation but returned no regulateId' };
    return {
      kind: 'accepted',
      trackingId: regulateId,
      status: 'PENDING',
      message: `Segment regulation ${regulateId} created (${ctx.config.regulationType})`,
    };
  },

  async checkStatus(ctx) {
    const regulateId = ctx.trackingId!;
    const response = await clientFor(ctx).getRegulation(regulateId);
    if (response.status === 429)
      throw new TransientError(`Segment rate limit: ${destinationMessage(response)}`, segmentWaitMs(response));
    if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
    const regulation = (jsonBody(response) as { data?: { regulation?: Record<string, unknown> } } | undefined)?.data
      ?.regulation;
    if (!regulation) return { kind: 'retry', reason: 'Segment returned no regulation in its answer' };
    return segmentStatusOutcome(regulation as Parameters<typeof segmentStatusOutcome>[0], regulateId);
  },

  async cancel(ctx) {
    try {
      const response = await clientFor(ctx).deleteRegulation(ctx.trackingId!);
      if (isSuccessStatus(response.status))
        return { canceled: true, message: `Segment regulation ${ctx.trackingId} deleted before it ran` };
      if (response.status === 429)
        return {
          canceled: false,
          message: `Segment rate limit: ${destinationMessage(response)}; try again after ${Math.ceil(segmentWaitMs(response) / 1000)} s`,
        };
      return {
        canceled: false,
        message: `Segment withdraws only INITIALIZED regulations: ${destinationMessage(response)}`,
      };
    } catch (error) {
      return { canceled: false, message: (error as Error).message };
    }
  },

  async testConnection(ctx) {
    try {
      const response = await clientFor(ctx).listRegulations();
      if (isSuccessStatus(response.status)) return { ok: true, message: 'Segment accepted the token' };
      return { ok: false, message: destinationMessage(response) };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
