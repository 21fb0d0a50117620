import type { RequestStatus } from '@shared/statuses';
import { configSnapshotKey, NOW_UTC, storeConfigSnapshots, type Query } from './sql';

/**
 * A member's changes to an integration request's schedule. Each writes only while the row
 * is still in the status the caller saw (`from`): false means it changed meanwhile.
 */

/**
 * FAILED or ERROR back to STAGING, due now, with a fresh attempt budget and no lease; the
 * attempts made so far are kept in `priorAttempts`, so the next one is numbered after them.
 * `startedAt` is cleared: the age limit of an async job or a wait counts from the retry's first
 * run, not from the first run weeks ago.
 * `current` replaces the frozen snapshot with the integration's configuration now (a retry
 * with the current configuration) and records when it was taken.
 */
export async function requeueForRetry(
  query: Query,
  id: string,
  from: RequestStatus,
  current?: { integrationName: string; configSnapshot: unknown },
): Promise<boolean> {
  const rows = await query(
    `WITH owner AS (
       SELECT dr."organizationId" FROM "IntegrationRequest" ir JOIN "DeletionRequest" dr ON dr.id = ir."deletionRequestId" WHERE ir.id = $1
     ), snapshot AS (
       ${storeConfigSnapshots('owner WHERE $4::jsonb IS NOT NULL', 'owner."organizationId"', '$4::jsonb')}
     )
     UPDATE "IntegrationRequest"
        SET status = 'STAGING', "priorAttempts" = "priorAttempts" + attempts, attempts = 0, "trackingId" = NULL, "lastError" = NULL,
            "completedAt" = NULL, "startedAt" = NULL, "nextAttemptAt" = ${NOW_UTC}, "lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ${NOW_UTC},
            "integrationName" = COALESCE($3::text, "integrationName"),
            "configSnapshotId" = COALESCE((SELECT ${configSnapshotKey('owner."organizationId"', '$4::jsonb')} FROM owner), "configSnapshotId"),
            "configTakenAt" = CASE WHEN $4::jsonb IS NULL THEN "configTakenAt" ELSE ${NOW_UTC} END
      WHERE id = $1 AND status = $2::"RequestStatus"
      RETURNING id`,
    [id, from, current?.integrationName ?? null, current ? JSON.stringify(current.configSnapshot) : null],
  );
  return rows.length === 1;
}

/** An active integration request's next step falls due now (its next poll or attempt, at once). */
export async function dueNow(query: Query, id: string, from: RequestStatus): Promise<boolean> {
  const rows = await query(
    `UPDATE "IntegrationRequest" SET "nextAttemptAt" = ${NOW_UTC}, "updatedAt" = ${NOW_UTC} WHERE id = $1 AND status = $2::"RequestStatus" RETURNING id`,
    [id, from],
  );
  return rows.length === 1;
}

/** CANCELED, finished, lease released: only while `owner` holds the lease. */
export async function markCanceled(query: Query, id: string, owner: string): Promise<boolean> {
  const rows = await query(
    `UPDATE "IntegrationRequest"
        SET status = 'CANCELED', "completedAt" = ${NOW_UTC}, "nextAttemptAt" = NULL, "lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ${NOW_UTC}
      WHERE id = $1 AND "lockedBy" = $2
      RETURNING id`,
    [id, owner],
  );
  return rows.length === 1;
}
