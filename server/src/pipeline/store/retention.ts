import type { DbOrTx } from '../../db/client';
import { identifierRedactor } from '../../integrations/runtime/redaction';
import { dbQuery } from './sql';

/** A hashed identifier: its keyed hash (HMAC-SHA256 with the service pepper) behind this prefix. */
export const HASHED_PREFIX = 'hmac-sha256:';

/** Finished requests of an organization that its retention policy has not reached yet, oldest-finished cutoff first. */
export async function dueForRetention(db: DbOrTx, organizationId: string, cutoff: Date, purge: boolean, limit: number) {
  return dbQuery(db)<{ id: string; identifierHmac: string }>(
    `SELECT id, encode("identifierHmac", 'hex') AS "identifierHmac" FROM "DeletionRequest"
      WHERE "organizationId" = $1 AND "completedAt" <= ($2::timestamptz AT TIME ZONE 'UTC') AND "purgedAt" IS NULL
        AND ($3::boolean OR NOT hashed)
      LIMIT $4`,
    [organizationId, cutoff.toISOString(), purge, limit],
  );
}

/**
 * Removes a request's identifier (purge: the identifier itself, keeping only the skeleton;
 * otherwise: replaced by its keyed hash) and what could carry it: the hash of the body it was
 * created with (an Idempotency-Key then replays by the key alone), its other identifiers, its
 * integration requests' last errors, the identifiers wherever a destination's task id repeats
 * them, and its audit payloads. Run inside the caller's transaction. The request must
 * still be due under the row lock this takes: one retried since it was picked (no longer
 * finished) is left alone, and the answer is false.
 */
export async function removeIdentifier(
  tx: DbOrTx,
  request: { id: string; identifierHmac: string },
  purge: boolean,
  now: Date,
  cutoff: Date,
): Promise<boolean> {
  const query = dbQuery(tx);
  const stillDue = `"completedAt" <= ($3::timestamptz AT TIME ZONE 'UTC') AND "purgedAt" IS NULL`;
  // Read before it goes: a task id that embeds it ("erase:jane@example.org") is blanked with it.
  const [current] = await query<{ identifier: string | null; hashed: boolean }>(
    `SELECT identifier, hashed FROM "DeletionRequest" WHERE id = $1 FOR UPDATE`,
    [request.id],
  );
  const changed = purge
    ? await query(
        `UPDATE "DeletionRequest" SET identifier = NULL, "identifierHmac" = sha256(convert_to($2, 'UTF8')), "requestHash" = NULL, hashed = false, "purgedAt" = ($4::timestamptz AT TIME ZONE 'UTC'), "updatedAt" = (now() AT TIME ZONE 'UTC')
          WHERE id = $1 AND ${stillDue} RETURNING id`,
        [request.id, `purged:${request.id}`, cutoff.toISOString(), now.toISOString()],
      )
    : await query(
        `UPDATE "DeletionRequest" SET identifier = $2, "requestHash" = NULL, hashed = true, "updatedAt" = (now() AT TIME ZONE 'UTC')
          WHERE id = $1 AND ${stillDue} AND NOT hashed RETURNING id`,
        [request.id, `${HASHED_PREFIX}${request.identifierHmac}`, cutoff.toISOString()],
      );
  if (changed.length === 0) return false;
  if (current?.identifier && !current.hashed) {
    // Every identifier of the person, the ones lookups found included, before their values go.
    const others = await query<{ value: string }>(
      `SELECT value FROM "RequestIdentifier" WHERE "deletionRequestId" = $1 AND value IS NOT NULL`,
      [request.id],
    );
    await redactTrackingIds(tx, request.id, [current.identifier, ...others.map((row) => row.value)]);
  }
  await query(
    `UPDATE "IntegrationRequest" SET "lastError" = NULL, "updatedAt" = (now() AT TIME ZONE 'UTC') WHERE "deletionRequestId" = $1`,
    [request.id],
  );
  // Every identifier of the person alike: hashed keeps only their keyed hashes, purged not even those.
  await query(
    purge
      ? `UPDATE "RequestIdentifier" SET value = NULL, "valueHmac" = sha256(convert_to('purged:' || id, 'UTF8')), "matchHmac" = sha256(convert_to('purged:' || id, 'UTF8')) WHERE "deletionRequestId" = $1`
      : `UPDATE "RequestIdentifier" SET value = NULL WHERE "deletionRequestId" = $1 AND value IS NOT NULL`,
    [request.id],
  );
  await query(
    `UPDATE "AuditLog" SET "details" = NULL, "exchanges" = NULL WHERE "deletionRequestId" = $1 AND ("details" IS NOT NULL OR "exchanges" IS NOT NULL)`,
    [request.id],
  );
  return true;
}

/** Each of the request's destination task ids with the identifiers blanked out of it. */
async function redactTrackingIds(tx: DbOrTx, deletionRequestId: string, identifiers: string[]) {
  const query = dbQuery(tx);
  const redact = identifierRedactor(identifiers);
  const rows = await query<{ id: string; trackingId: string }>(
    `SELECT id, "trackingId" FROM "IntegrationRequest" WHERE "deletionRequestId" = $1 AND "trackingId" IS NOT NULL`,
    [deletionRequestId],
  );
  for (const row of rows) {
    const redacted = redact(row.trackingId);
    if (redacted !== row.trackingId)
      await query(`UPDATE "IntegrationRequest" SET "trackingId" = $2 WHERE id = $1`, [row.id, redacted]);
  }
}
