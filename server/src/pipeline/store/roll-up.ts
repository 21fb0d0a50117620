import type { RequestStatus } from '@shared/statuses';
import { NOW_UTC, utc, type Query } from './sql';
import { isTerminal, NO_INTEGRATIONS_REASON, rollUpStatus } from '../state-machine';
import { enqueueRequestFinishedEvents } from '../../callbacks/store/events';

export interface LockedParent {
  status: RequestStatus;
  organizationId: string;
  completedAt: Date | null;
  /** The retention policy hashed or deleted its identifier: nothing can be sent any more. */
  identifierRemoved: boolean;
}

/** Locks a deletion request's row for the rest of the transaction, so concurrent finishes cannot interleave their roll-ups. */
export async function lockDeletionRequest(query: Query, deletionRequestId: string): Promise<LockedParent | null> {
  const [parent] = await query<LockedParent>(
    `SELECT status::text AS status, "organizationId", "completedAt", (identifier IS NULL OR hashed) AS "identifierRemoved"
       FROM "DeletionRequest" WHERE id = $1 FOR UPDATE`,
    [deletionRequestId],
  );
  return parent ?? null;
}

export interface ChildState {
  status: RequestStatus;
  completedAt: Date | null;
}

/**
 * Recomputes a deletion request's status from its integration requests (the rule is
 * `rollUpStatus`), with an audit entry when it changes. The caller holds the row lock.
 * Answers how many status callbacks were recorded.
 */
export async function rollUpDeletionRequest(
  query: Query,
  deletionRequestId: string,
  parent: LockedParent,
): Promise<number> {
  const children = await query<ChildState>(
    `SELECT status::text AS status, "completedAt" FROM "IntegrationRequest" WHERE "deletionRequestId" = $1`,
    [deletionRequestId],
  );
  const change = rollUpChange(deletionRequestId, parent, children);
  return change ? writeRollUps(query, [change]) : 0;
}

/** A deletion request's new status from its integration requests, ready to be written. */
export interface RollUpChange {
  deletionRequestId: string;
  status: RequestStatus;
  reason: string | null;
  finished: boolean;
  /** When the last integration request finished (the request's completedAt), ISO. */
  latest: string | null;
  action: 'request.completed' | 'request.status_changed';
  summary: string;
}

/** The roll-up of `children` (read after the parent's lock was taken), or null when the parent already shows it. */
export function rollUpChange(
  deletionRequestId: string,
  parent: LockedParent,
  children: ChildState[],
): RollUpChange | null {
  const status = rollUpStatus(children.map((c) => c.status));
  const finished = isTerminal(status);
  if (parent.status === status && Boolean(parent.completedAt) === finished) return null;
  const latest = children.reduce<Date | null>(
    (max, c) => (c.completedAt && (!max || c.completedAt > max) ? c.completedAt : max),
    null,
  );
  return {
    deletionRequestId,
    status,
    reason: children.length === 0 ? NO_INTEGRATIONS_REASON : null,
    finished,
    latest: latest ? latest.toISOString() : null,
    action: finished ? 'request.completed' : 'request.status_changed',
    summary: `Request ${parent.status} → ${status}`,
  };
}

/**
 * Writes roll-ups and their audit entries (in the order given), in one statement. The caller
 * holds the parents' locks. Answers how many status callbacks it recorded (wake the
 * dispatchers after the commit when there are any).
 */
export async function writeRollUps(query: Query, changes: RollUpChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  await query(
    `WITH change AS (
       SELECT c.*, n.ord FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS n(v, ord),
              jsonb_to_record(n.v) AS c("deletionRequestId" text, status text, reason text, finished boolean, latest text, action text, summary text)
     ), request AS (
       UPDATE "DeletionRequest" d SET status = c.status::"RequestStatus", "statusReason" = c.reason,
              "completedAt" = CASE WHEN c.finished THEN COALESCE(${utc('c.latest')}, ${NOW_UTC}) END, "updatedAt" = ${NOW_UTC}
         FROM change c WHERE d.id = ANY($2::text[]) AND d.id = c."deletionRequestId"
       RETURNING d.id, d."organizationId", c.status, c.action, c.summary, c.ord
     )
     INSERT INTO "AuditLog" ("organizationId", "deletionRequestId", "actorType", "actorId", action, outcome, summary, "createdAt")
     SELECT "organizationId", id, 'system', NULL, action, status, summary, ${NOW_UTC} FROM request ORDER BY ord`,
    // The ids as an array too, so that the planner looks them up by key (see finish.ts).
    [JSON.stringify(changes), changes.map((c) => c.deletionRequestId)],
  );
  // Status callbacks of the requests that finished, in this same transaction.
  return enqueueRequestFinishedEvents(
    query,
    changes.filter((c) => c.finished).map((c) => c.deletionRequestId),
  );
}
