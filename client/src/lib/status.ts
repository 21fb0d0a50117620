import { REQUEST_STATUSES, type RequestStatus } from '@shared/statuses';

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

/** "2 of 3 integrations done, 1 failed" */
export function progressSummary(statuses: readonly RequestStatus[]): string {
  if (statuses.length === 0) return 'No integrations';
  const done = statuses.filter((s) => s === 'SUCCESS').length;
  const failed = statuses.filter((s) => s === 'FAILED' || s === 'ERROR').length;
  const canceled = statuses.filter((s) => s === 'CANCELED').length;
  const parts = [`${done} of ${statuses.length} integration${statuses.length === 1 ? '' : 's'} done`];
  if (failed) parts.push(`${failed} failed`);
  if (canceled) parts.push(`${canceled} canceled`);
  return parts.join(', ');
}

export { REQUEST_STATUSES };
