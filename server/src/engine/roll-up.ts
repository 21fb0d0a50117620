import type { RequestStatus } from '@shared/statuses';
import { insertAudit, NOW_UTC, utc, type Query } from './sql';
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

/**
 * Recomputes a deletion request's status from its integration requests (the rule is
 * `rollUpStatus`), with an audit entry when it changes. The caller holds the row lock.
 */
export async function rollUpDeletionRequest(query: Query, deletionRequestId: string, parent: LockedParent): Promise<void> {
  const children = await query<{ status: RequestStatus; completedAt: Date | null }>(
    `SELECT status::text AS status, "completedAt" FROM "IntegrationRequest" WHERE "deletionRequestId" = $1`,
    [deletionRequestId],
  );
  const status = rollUpStatus(children.map((c) => c.status));
  const finished = isTerminal(status);
  if (parent.status === status && Boolean(parent.completedAt) === finished) return;
  const latest = children.reduce<Date | null>((max, c) => (c.completedAt && (!max || c.completedAt > max) ? c.completedAt : max), null);
  await query(
    `UPDATE "DeletionRequest" SET status = $2::"RequestStatus", "statusReason" = $3,
            "completedAt" = CASE WHEN $4::boolean THEN COALESCE(${utc('$5')}, ${NOW_UTC}) END, "updatedAt" = ${NOW_UTC}
      WHERE id = $1 RETURNING id`,
    [deletionRequestId, status, children.length === 0 ? NO_INTEGRATIONS_REASON : null, finished, latest ? latest.toISOString() : null],
  );
  await insertAudit(query, [
    {
      organizationId: parent.organizationId,
      deletionRequestId,
      action: finished ? 'request.completed' : 'request.status_changed',
      outcome: status,
      summary: `Request ${parent.status} → ${status}`,
    },
  ]);
}
