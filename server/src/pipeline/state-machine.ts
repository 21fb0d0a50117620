import type { RequestStatus } from '@shared/statuses';

/**
 * The allowed transitions of an integration request. The engine and every action
 * (retry, cancel, check status) go through `assertTransition`; each transition is audited.
 *
 *   STAGING    -> STAGING (retry scheduled), PENDING, PROCESSING, SUCCESS, FAILED, ERROR, CANCELED
 *   PENDING    -> PENDING (poll), PROCESSING, SUCCESS, FAILED, ERROR, CANCELED
 *   PROCESSING -> PROCESSING (poll), PENDING, SUCCESS, FAILED, ERROR, CANCELED
 *   FAILED     -> STAGING (retried by a member)
 *   ERROR      -> STAGING (retried by a member)
 *   SUCCESS, CANCELED: final
 */
export const TRANSITIONS: Record<RequestStatus, readonly RequestStatus[]> = {
  STAGING: ['STAGING', 'PENDING', 'PROCESSING', 'SUCCESS', 'FAILED', 'ERROR', 'CANCELED'],
  PENDING: ['PENDING', 'PROCESSING', 'SUCCESS', 'FAILED', 'ERROR', 'CANCELED'],
  PROCESSING: ['PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'ERROR', 'CANCELED'],
  FAILED: ['STAGING'],
  ERROR: ['STAGING'],
  SUCCESS: [],
  CANCELED: [],
};

export const ACTIVE_STATUSES: readonly RequestStatus[] = ['STAGING', 'PENDING', 'PROCESSING'];
export const isActive = (status: RequestStatus) => ACTIVE_STATUSES.includes(status);
export const isTerminal = (status: RequestStatus) => !isActive(status);
export const isRetryable = (status: RequestStatus) => status === 'FAILED' || status === 'ERROR';

export function canTransition(from: RequestStatus, to: RequestStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export class TransitionError extends Error {
  constructor(
    readonly from: RequestStatus,
    readonly to: RequestStatus,
  ) {
    super(`An integration request cannot go from ${from} to ${to}`);
  }
}

export function assertTransition(from: RequestStatus, to: RequestStatus): void {
  if (!canTransition(from, to)) throw new TransitionError(from, to);
}

/** Terminal precedence when every integration request has finished: the worst outcome wins. */
const TERMINAL_PRECEDENCE: readonly RequestStatus[] = ['ERROR', 'FAILED', 'CANCELED', 'SUCCESS'];

/**
 * The deletion request's status from its integration requests (documented in the README):
 * - none: FAILED (nothing was connected, so nothing was deleted);
 * - any still active: PROCESSING if any is PROCESSING, else PENDING if any is PENDING, else STAGING;
 * - all finished: ERROR if any ERROR, else FAILED if any FAILED, else CANCELED if any CANCELED, else SUCCESS.
 * It depends only on the multiset of statuses, never on their order.
 */
export function rollUpStatus(statuses: readonly RequestStatus[]): RequestStatus {
  if (statuses.length === 0) return 'FAILED';
  if (statuses.some(isActive)) {
    if (statuses.includes('PROCESSING')) return 'PROCESSING';
    if (statuses.includes('PENDING')) return 'PENDING';
    return 'STAGING';
  }
  return TERMINAL_PRECEDENCE.find((s) => statuses.includes(s)) ?? 'SUCCESS';
}

export const NO_INTEGRATIONS_REASON =
  'The workspace had no enabled integrations when this request was created, so nothing was deleted. Connect an integration and retry the request.';
