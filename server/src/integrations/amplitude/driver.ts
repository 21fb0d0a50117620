import type { AmplitudeConfig } from '@shared/integrations';
import { destinationMessage, isSuccessStatus, outcomeForHttpError } from '../runtime/http-client';
import { PermanentError, type Driver, type DriverContext } from '../types';
import { credential, jsonBody, queuedByRateLimit, rateLimitError } from '../runtime/vendor-http';
import { amplitudeClient, jobsOf } from './client';
import { amplitudeStatusOutcome, formatTracking, parseTracking, trackingFromJobs, withSubjectId } from './status';

const clientFor = (ctx: Pick<DriverContext<AmplitudeConfig>, 'http' | 'config' | 'secrets'>) =>
  amplitudeClient(ctx.http, ctx.config, { apiKey: credential(ctx, 'apiKey'), secretKey: credential(ctx, 'secretKey') });

function trackingOf(ctx: Pick<DriverContext<AmplitudeConfig>, 'trackingId' | 'identifier'>) {
  const tracking = parseTracking(ctx.trackingId ?? '');
  if (tracking.length === 0) throw new PermanentError(`Unreadable Amplitude tracking id "${ctx.trackingId}"`);
  return withSubjectId(tracking, ctx.identifier);
}

export const amplitudeDriver: Driver<AmplitudeConfig> = {
  type: 'AMPLITUDE',
  async: true,
  canCancel: () => true,
  expectedCompletion: 'about 2 weeks (Amplitude schedules jobs 10-13 days out, then deletes within days)',

  async requestDeletion(ctx) {
    if (ctx.config.identifierType === 'amplitude_id' && !/^\d{1,20}$/.test(ctx.identifier)) {
      return {
        kind: 'failed',
        reason: `"${ctx.identifier}" is not an Amplitude id (a number); change the integration's identifier type to user id`,
      };
    }
    const response = await clientFor(ctx).createDeletion(ctx.identifier);
    if (response.status === 429) return queuedByRateLimit('Amplitude', response, ctx.now, 5_000);
    if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
    const jobs = jobsOf(jsonBody(response));
    const tracking = trackingFromJobs(jobs, { identifier: ctx.identifier, identifierType: ctx.config.identifierType });
    if (tracking.length === 0) {
      // ignore_invalid_id: Amplitude created no job because it knows no such user.
      return {
        kind: 'success',
        message: 'Amplitude knows no user with this id: nothing to delete',
        evidence: { userFound: false },
      };
    }
    const trackingId = formatTracking(tracking);
    const scheduled = tracking.map((t) => {
      const job = jobs.find((j) => j.day === t.day && (t.app === undefined || String(j.app) === t.app));
      return `job of ${t.day}${t.app ? ` in project ${t.app}` : ''}: ${job?.status ?? 'scheduled'}`;
    });
    return {
      kind: 'accepted',
      trackingId,
      status: 'PENDING',
      message: `Amplitude scheduled the deletion (${scheduled.join(', ')})`,
    };
  },

  async checkStatus(ctx) {
    const tracking = trackingOf(ctx);
    const days = tracking.map((t) => t.day).sort();
    const response = await clientFor(ctx).listJobs(days[0]!, days[days.length - 1]!);
    if (response.status === 429) throw rateLimitError('Amplitude', response, 5_000);
    if (!isSuccessStatus(response.status)) return outcomeForHttpError(response);
    return amplitudeStatusOutcome(tracking, jobsOf(jsonBody(response)));
  },

  async cancel(ctx) {
    try {
      const client = clientFor(ctx);
      const removed: string[] = [];
      for (const { day, amplitudeIds } of trackingOf(ctx)) {
        for (const id of amplitudeIds) {
          const response = await client.removeFromJob(id, day);
          if (!isSuccessStatus(response.status)) {
            const partly = removed.length ? ` (already removed: ${removed.join(', ')})` : '';
            return {
              canceled: false,
              message: `Amplitude removes users only from staging jobs: ${destinationMessage(response)}${partly}`,
            };
          }
          removed.push(`${id}@${day}`);
        }
      }
      return { canceled: true, message: `Removed from Amplitude's staging deletion job (${removed.join(', ')})` };
    } catch (error) {
      return { canceled: false, message: (error as Error).message };
    }
  },

  async testConnection(ctx) {
    // Lists today's jobs: checks the key pair without scheduling anything.
    try {
      const today = ctx.now.toISOString().slice(0, 10);
      const response = await clientFor(ctx).listJobs(today, today);
      if (isSuccessStatus(response.status))
        return { ok: true, message: 'Amplitude accepted the API key and secret key' };
      return { ok: false, message: destinationMessage(response) };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
