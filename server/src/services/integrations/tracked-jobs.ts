/** Tracking ids of a destination that holds several deletion jobs for one request: `multi:` and the jobs by value position. */
const MULTI_PREFIX = 'multi:';

/** The destination's jobs of one integration request, each with the position of the value it deletes. */
export type Jobs = { at: number; trackingId: string }[];

/** The tracking id that keeps several jobs (the step writes it, the cancel and the next step read it). */
export const encodeJobs = (jobs: Jobs) => `${MULTI_PREFIX}${JSON.stringify(jobs)}`;

/**
 * The destination's jobs behind a step's tracking id, each with the position of the value it
 * deletes (a plain tracking id is the first value's job); what a status check polls and a
 * cancel calls the destination for.
 */
export function trackedJobs(trackingId: string | null, values: number): Jobs {
  const jobs = decodeJobs(trackingId);
  if (!jobs) return trackingId ? [{ at: 0, trackingId }] : [];
  return jobs.filter((job) => job.at < values);
}

/** The jobs a tracking id written by `encodeJobs` keeps; null for a plain tracking id or none. */
const decodeJobs = (trackingId: string | null): Jobs | null =>
  trackingId?.startsWith(MULTI_PREFIX) ? (JSON.parse(trackingId.slice(MULTI_PREFIX.length)) as Jobs) : null;

/** How a combined outcome names one of an integration request's values: "identifier 2 of 3". */
export const identifierLabel = (at: number, count: number) => `identifier ${at + 1} of ${count}`;

/**
 * A tracking id as the API, the dashboard and a certificate show it: the destination's own id,
 * or its job ids one after another ("job-1, job-2") where it keeps one job per value.
 */
export function shownTrackingId(trackingId: string): string;
export function shownTrackingId(trackingId: string | null): string | null;
export function shownTrackingId(trackingId: string | null): string | null {
  try {
    return (
      decodeJobs(trackingId)
        ?.map((job) => job.trackingId)
        .join(', ') ?? trackingId
    );
  } catch {
    return trackingId; // not written by encodeJobs: shown as stored
  }
}
