import type { DbOrTx } from '../../db/client';
import { dbQuery } from './sql';

/** A hashed identifier: its keyed hash (HMAC-SHA256 with the service pepper) behind this prefix. */
export const HASHED_PREFIX = 'hmac-sha256:';

/** Finished requests of an organization that its retention policy has not reached yet, oldest-finished cutoff first. */
export async function dueForRetention(db: DbOrTx, organizationId: string, cutoff: Date, purge: boolean, limit: number) {
  return dbQuery(db)<{ id: string; identifierHmac: string }>(
    `SELECT id, "identifierHmac" FROM "DeletionRequest"
      WHERE "organizationId" = $1 AND "completedAt" <= ($2::timestamptz AT TIME ZONE 'UTC') AND "purgedAt" IS NULL
        AND ($3::boolean OR NOT hashed)
      LIMIT $4`,
    [organizationId, cutoff.toISOString(), purge, limit],
  );
}

/**
 * Removes a request's identifier (purge: the identifier itself, keeping only the skeleton;
 * otherwise: replaced by its keyed hash) and what could carry it: its integration requests'
 * last errors and its audit payloads. Run inside the caller's transaction.
 */
export async function removeIdentifier(
  tx: DbOrTx,
  request: { id: string; identifierHmac: string },
  purge: boolean,
  now: Date,
): Promise<void> {
  const query = dbQuery(tx);
  if (purge) {
    await query(
      `UPDATE "DeletionRequest" SET identifier = NULL, "identifierHmac" = $2, hashed = false, "purgedAt" = ($3::timestamptz AT TIME ZONE 'UTC'), "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE id = $1`,
      [request.id, `purged:${request.id}`, now.toISOString()],
    );
  } else {
    await query(
      `UPDATE "DeletionRequest" SET identifier = $2, hashed = true, "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE id = $1`,
      [request.id, `${HASHED_PREFIX}${request.identifierHmac}`],
    );
  }
  await query(
    `UPDATE "IntegrationRequest" SET "lastError" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE "deletionRequestId" = $1`,
    [request.id],
  );
  await query(`UPDATE "AuditLog" SET "details" = NULL WHERE "deletionRequestId" = $1 AND "details" IS NOT NULL`, [
    request.id,
  ]);
}
