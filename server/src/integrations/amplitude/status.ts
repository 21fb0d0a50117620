import type { Outcome } from '../types';
import type { AmplitudeJob } from './client';

/**
 * Our tracking id for Amplitude: which Amplitude ids were scheduled in the job of which day,
 * e.g. "2024-06-14:123,456" (several jobs, with delete_from_org, are joined by ";").
 */
export type AmplitudeTracking = { day: string; amplitudeIds: string[] }[];

export function formatTracking(tracking: AmplitudeTracking): string {
  return tracking.map((t) => `${t.day}:${t.amplitudeIds.join(',')}`).join(';');
}

export function parseTracking(trackingId: string): AmplitudeTracking {
  return trackingId
    .split(';')
    .map((part) => {
      const [day = '', ids = ''] = part.split(':');
      return { day, amplitudeIds: ids.split(',').filter(Boolean) };
    })
    .filter((t) => /^\d{4}-\d{2}-\d{2}$/.test(t.day) && t.amplitudeIds.length > 0);
}

/** The scheduled (day, amplitude ids) of a create response. */
export function trackingFromJobs(jobs: AmplitudeJob[]): AmplitudeTracking {
  return jobs
    .map((job) => ({ day: job.day, amplitudeIds: job.amplitude_ids.map((a) => String(a.amplitude_id)) }))
    .filter((t) => t.amplitudeIds.length > 0);
}

const RANK: Record<string, number> = { staging: 0, submitted: 1, done: 2 };

/**
 * staging -> PENDING (still cancelable), submitted -> PROCESSING, done -> SUCCESS once every
 * scheduled id is done. An id no longer listed in its job was removed from it: CANCELED.
 */
export function amplitudeStatusOutcome(tracking: AmplitudeTracking, jobs: AmplitudeJob[]): Outcome {
  const statuses: string[] = [];
  for (const { day, amplitudeIds } of tracking) {
    const job = jobs.find((j) => j.day === day);
    const listed = new Set((job?.amplitude_ids ?? []).map((a) => String(a.amplitude_id)));
    const missing = amplitudeIds.filter((id) => !listed.has(id));
    if (!job || missing.length > 0) {
      return { kind: 'canceled', message: `Amplitude no longer lists amplitude id ${missing.join(', ') || amplitudeIds.join(', ')} in the deletion job of ${day} (removed from the job)` };
    }
    statuses.push(job.status);
  }
  const summary = tracking.map((t, i) => `${t.day}: ${statuses[i]}`).join(', ');
  const unknown = statuses.find((s) => !(s in RANK));
  if (unknown) return { kind: 'pending', status: 'PROCESSING', message: `Amplitude job status ${unknown} (${summary})` };
  const lowest = Math.min(...statuses.map((s) => RANK[s]!));
  if (lowest === 2) return { kind: 'success', message: `Amplitude deletion job done (${summary})`, evidence: { amplitudeJobs: tracking, statuses } };
  if (lowest === 1) return { kind: 'pending', status: 'PROCESSING', message: `Amplitude job submitted; deletion running (${summary})` };
  return { kind: 'pending', status: 'PENDING', message: `Amplitude job staging, scheduled for ${summary}` };
}
