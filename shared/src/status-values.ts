/**
 * The request statuses as plain values, for code that must not load zod (the dashboard's
 * first bundle); `statuses.ts` builds its schemas from these.
 */
export const REQUEST_STATUSES = ['STAGING', 'PENDING', 'PROCESSING', 'SUCCESS', 'CANCELED', 'FAILED', 'ERROR'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];
/**
 * A request that still owes the subject an answer: every status but SUCCESS and CANCELED.
 * Queries name these rather than exclude the other two: PostgreSQL reaches the few unfulfilled
 * requests through the (organization, status) index only for an IN list, where a NOT IN reads
 * the organization's whole history of fulfilled ones (server/src/db/overview-indexes.test.ts).
 */
export const UNFULFILLED_STATUSES: RequestStatus[] = REQUEST_STATUSES.filter(
  (status) => status !== 'SUCCESS' && status !== 'CANCELED',
);

/**
 * The list's deadline filters: overdue, due within 7 days, or receipt still to be confirmed to
 * the subject (CCPA) (plain values, like the statuses).
 */
export const DUE_FILTERS = ['overdue', 'due7', 'unconfirmed'] as const;
export type DueFilter = (typeof DUE_FILTERS)[number];
