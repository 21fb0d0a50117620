import type { Outcome } from '../types';
import type { AmplitudeJob } from './client';

/**
 * Our tracking id for Amplitude: which Amplitude ids this request scheduled in the job of which
 * day and project (`app`), e.g. "2024-06-14@187520:123" (with delete_from_org one job per
 * project, joined by ";"). Ids written before `app` was tracked ("2024-06-14:123") still parse.
 * When the subject's identifier is itself its Amplitude id, the tracking id says `subject`
 * instead ("2024-06-14@187520:subject"): a tracking id is shown in the dashboard, the API and
 * certificates and outlives retention, so it never holds the identifier.
 */
export type AmplitudeTracking = { day: string; app?: string; amplitudeIds: string[] }[];

/** Stands for the subject's own Amplitude id (identifier type `amplitude_id`) in a tracking id. */
export const SUBJECT_ID = 'subject';

/** The tracking with `SUBJECT_ID` read as the request's identifier again (for the calls that need the id). */
export const withSubjectId = (tracking: AmplitudeTracking, identifier: string): AmplitudeTracking =>
  tracking.map((t) => ({ ...t, amplitudeIds: t.amplitudeIds.map((id) => (id === SUBJECT_ID ? identifier : id)) }));

export function formatTracking(tracking: AmplitudeTracking): string {
  return tracking.map((t) => `${t.day}${t.app ? `@${t.app}` : ''}:${t.amplitudeIds.join(',')}`).join(';');
}

export function parseTracking(trackingId: string): AmplitudeTracking {
  return trackingId
    .split(';')
    .map((part) => {
      const [key = '', ids = ''] = part.split(':');
      const [day = '', app] = key.split('@');
      return { day, ...(app ? { app } : {}), amplitudeIds: ids.split(',').filter(Boolean) };
    })
    .filter((t) => /^\d{4}-\d{2}-\d{2}$/.test(t.day) && t.amplitudeIds.length > 0);
}

/**
 * The (day, project, amplitude ids) this request scheduled. Amplitude answers with the whole job
 * of the day, other subjects' ids included, so only the entries of this subject are kept: the
 * entries mapped to its user id (include_mapped_user_ids), or its own amplitude id.
 */
export function trackingFromJobs(
  jobs: AmplitudeJob[],
  subject: { identifier: string; identifierType: 'user_id' | 'amplitude_id' },
): AmplitudeTracking {
  return jobs
    .map((job) => {
      const own = job.amplitude_ids.filter((a) =>
        subject.identifierType === 'amplitude_id'
          ? String(a.amplitude_id) === subject.identifier
          : a.user_id === subject.identifier,
      );
      const ids = [...new Set(own.map((a) => String(a.amplitude_id)))];
      if (subject.identifierType === 'amplitude_id' && ids.length > 0) ids.splice(0, ids.length, SUBJECT_ID);
      return {
        day: job.day,
        ...(job.app !== undefined && job.app !== null ? { app: String(job.app) } : {}),
        amplitudeIds: ids,
      };
    })
    .filter((t) => t.amplitudeIds.length > 0);
}

/** The listed job a tracking entry points at: same day and, when tracked, same project. */
export const jobFor = (jobs: AmplitudeJob[], entry: AmplitudeTracking[number]) =>
  jobs.find((j) => j.day === entry.day && (entry.app === undefined || String(j.app) === entry.app));

const RANK: Record<string, number> = { staging: 0, submitted: 1, done: 2 };

/**
 * staging -> PENDING (still cancelable), submitted -> PROCESSING, done -> SUCCESS once every
 * scheduled id is done. An id no longer listed in its job was removed from it at Amplitude: FAILED (a member can retry).
 */
export function amplitudeStatusOutcome(tracking: AmplitudeTracking, jobs: AmplitudeJob[]): Outcome {
  const statuses: string[] = [];
  for (const entry of tracking) {
    const { day, amplitudeIds } = entry;
    const job = jobFor(jobs, entry);
    const listed = new Set((job?.amplitude_ids ?? []).map((a) => String(a.amplitude_id)));
    const missing = amplitudeIds.filter((id) => !listed.has(id));
    if (!job || missing.length > 0) {
      return {
        kind: 'failed',
        reason: `Amplitude no longer lists amplitude id ${missing.join(', ') || amplitudeIds.join(', ')} in the deletion job of ${day}${entry.app ? ` (project ${entry.app})` : ''}: it was removed from the job at Amplitude and its data was not deleted; retry to ask again`,
      };
    }
    statuses.push(job.status);
  }
  const summary = tracking.map((t, i) => `${t.day}${t.app ? ` project ${t.app}` : ''}: ${statuses[i]}`).join(', ');
  // The page writes the statuses `submitted`/`done` in its prose and "Staging"/"Submitted"/"Done" in its table.
  const unknown = statuses.find((s) => !(String(s).toLowerCase() in RANK));
  if (unknown)
    return { kind: 'pending', status: 'PROCESSING', message: `Amplitude job status ${unknown} (${summary})` };
  const lowest = Math.min(...statuses.map((s) => RANK[String(s).toLowerCase()]!));
  if (lowest === 2)
    return {
      kind: 'success',
      message: `Amplitude deletion job done (${summary})`,
      evidence: { amplitudeJobs: tracking, statuses },
    };
  if (lowest === 1)
    return { kind: 'pending', status: 'PROCESSING', message: `Amplitude job submitted; deletion running (${summary})` };
  return { kind: 'pending', status: 'PENDING', message: `Amplitude job staging, scheduled for ${summary}` };
}
