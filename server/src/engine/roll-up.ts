import type { RequestStatus } from '@shared/statuses';
import { NOW_UTC, utc, type Query } from './sql';
import { isTerminal, NO_INTEGRATIONS_REASON, rollUpStatus } from './state-machine';

export interface LockedParent {
  status: RequestStatus;
  organizationId: string;
  completedAt: Date | null;
}

/** Locks a deletion request's row for the rest of the transaction, so concurrent finishes cannot interleave their roll-ups. */
export async function lockDeletionRequest(query: Query, deletionRequestId: string): Promise<LockedParent | null> {
  const [parent] = await query<LockedParent>(
    `SELECT status::text AS status, "organizationId", "completedAt" FROM "DeletionRequest" WHERE id = $1 FOR UPDATE`,
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
 */
export async function rollUpDeletionRequest(query: Query, deletionRequestId: string, parent: LockedParent): Promise<void> {
  const children = await query<ChildState>(
    `SELECT status::text AS status, "completedAt" FROM "IntegrationRequest" WHERE "deletionRequestId" = $1`,
    [deletionRequestId],
  );
  await applyRollUp(query, deletionRequestId, parent, children);
}

/** Writes the roll-up of `children` (read after the parent's lock was taken) and its audit entry, in one statement. */
export async function applyRollUp(query: Query, deletionRequestId: string, parent: LockedParent, children: ChildState[]): Promise<void> {
  const status = rollUpStatus(children.map((c) => c.status));
  const finished = isTerminal(status);
  if (parent.status === status && Boolean(parent.completedAt) === finished) return;
  const latest = children.reduce<Date | null>((max, c) => (c.completedAt && (!max || c.completedAt > max) ? c.completedAt : max), null);
  await query(
    `WITH request AS (
       UPDATE "DeletionRequest" SET status = $2::"RequestStatus", "statusReason" = $3,
              "completedAt" = CASE WHEN $4::boolean THEN COALESCE(${utc('$5')}, ${NOW_UTC}) END, "updatedAt" = ${NOW_UTC}
        WHERE id = $1 RETURNING id, "organizationId"
     )
     INSERT INTO "AuditLog" ("organizationId", "deletionRequestId", "actorType", "actorId", action, outcome, summary, "createdAt")
     SELECT "organizationId", id, 'system', NULL, $6, $2, $7, ${NOW_UTC} FROM request RETURNING id`,
    [
      deletionRequestId,
      status,
      children.length === 0 ? NO_INTEGRATIONS_REASON : null,
      finished,
      latest ? latest.toISOString() : null,
      finished ? 'request.completed' : 'request.status_changed',
      `Request ${parent.status} → ${status}`,
    ],
  );
}
