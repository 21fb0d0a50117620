import { REQUEST_STATUSES, type RequestStatus } from '@shared/status-values';

export const STATUS_LABEL: Record<RequestStatus, string> = {
  STAGING: 'Staging',
  PENDING: 'Pending',
  PROCESSING: 'Processing',
  SUCCESS: 'Succeeded',
  CANCELED: 'Canceled',
  FAILED: 'Failed',
  ERROR: 'Error',
};

/** What each status means to someone watching a request. */
export const STATUS_DESCRIPTION: Record<RequestStatus, string> = {
  STAGING: 'Being prepared and dispatched',
  PENDING: 'Sent; waiting on the destination or scheduled for later',
  PROCESSING: 'The destination is deleting the data',
  SUCCESS: 'The destination confirmed the deletion',
  CANCELED: 'Canceled before it completed',
  FAILED: 'Sending or executing failed; it can be retried',
  ERROR: 'An internal error of the service',
};

/** Colours shared by badges, the segmented bars and the charts (CSS custom properties). */
export const STATUS_COLOR: Record<RequestStatus, string> = {
  STAGING: 'var(--status-staging)',
  PENDING: 'var(--status-pending)',
  PROCESSING: 'var(--status-processing)',
  SUCCESS: 'var(--status-success)',
  CANCELED: 'var(--status-canceled)',
  FAILED: 'var(--status-failed)',
  ERROR: 'var(--status-error)',
};

export const ACTIVE_STATUSES: readonly RequestStatus[] = ['STAGING', 'PENDING', 'PROCESSING'];

export const isActive = (status: RequestStatus) => ACTIVE_STATUSES.includes(status);

export interface StatusSegment {
  status: RequestStatus;
  count: number;
  /** Share of the whole, 0..1. */
  fraction: number;
}

/** Per-status segments of a segmented progress bar, in the canonical status order, empty ones dropped. */
export function statusSegments(statuses: readonly RequestStatus[]): StatusSegment[] {
  if (statuses.length === 0) return [];
  const counts = new Map<RequestStatus, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  // Finished work first (left), then what is still moving, so the bar fills left to right.
  const order: RequestStatus[] = ['SUCCESS', 'CANCELED', 'FAILED', 'ERROR', 'PROCESSING', 'PENDING', 'STAGING'];
  return order
    .filter((s) => counts.has(s))
    .map((status) => ({ status, count: counts.get(status)!, fraction: counts.get(status)! / statuses.length }));
}

/**
 * How far a request got, counting finished integrations (whatever their outcome) against all:
 * "4 of 4 finished: 3 succeeded, 1 failed", "1 of 3 finished: 1 succeeded; 2 still running".
 */
export function progressSummary(statuses: readonly RequestStatus[]): string {
  if (statuses.length === 0) return 'No integrations';
  const count = (...of: RequestStatus[]) => statuses.filter((s) => of.includes(s)).length;
  const succeeded = count('SUCCESS');
  const failed = count('FAILED', 'ERROR');
  const canceled = count('CANCELED');
  const running = statuses.length - succeeded - failed - canceled;
  const outcomes = [
    succeeded ? `${succeeded} succeeded` : null,
    failed ? `${failed} failed` : null,
    canceled ? `${canceled} canceled` : null,
  ].filter(Boolean);
  const finished = statuses.length - running;
  let text = `${finished} of ${statuses.length} finished`;
  if (outcomes.length) text += `: ${outcomes.join(', ')}`;
  if (running) text += `${outcomes.length ? ';' : ','} ${running} still running`;
  return text;
}

/** What a request's own (rolled-up) status means, for as many destinations as it has. */
export function requestStatusDescription(status: RequestStatus, integrationCount: number): string {
  if (integrationCount <= 1) return STATUS_DESCRIPTION[status];
  const REQUEST_DESCRIPTION: Record<RequestStatus, string> = {
    STAGING: 'Being prepared and dispatched to its destinations',
    PENDING: 'Sent; waiting on destinations or scheduled for later',
    PROCESSING: 'Destinations are deleting the data',
    SUCCESS: `All ${integrationCount} destinations confirmed the deletion`,
    CANCELED: 'Canceled before every destination completed',
    FAILED: 'At least one destination failed; failed ones can be retried',
    ERROR: 'An internal error of the service on at least one destination; it can be retried',
  };
  return REQUEST_DESCRIPTION[status];
}

/** One order for a request's integration cards while it runs (statuses change, the cards do not move): by name, then id. */
export function inDisplayOrder<T extends { name: string; id: string }>(integrationRequests: readonly T[]): T[] {
  return [...integrationRequests].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

export { REQUEST_STATUSES };
