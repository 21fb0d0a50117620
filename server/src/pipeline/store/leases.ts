import { NOW_UTC, type Query } from './sql';

/**
 * Leases: who may run an integration request's next step (`lockedBy`, until `lockedUntil`).
 * The worker takes them in `claimDueSteps` (claim.ts); a member's cancel takes one for a
 * single request with `takeLease`. Either way the holder renews it while it works, writes
 * its outcome only while it still holds it, and hands it back when done.
 */

/** Takes the lease of one active integration request still in `status` when nobody holds it; false when someone does. */
export async function takeLease(
  query: Query,
  id: string,
  status: string,
  owner: string,
  leaseMs: number,
): Promise<boolean> {
  const taken = await query(
    `UPDATE "IntegrationRequest" SET "lockedBy" = $3, "lockedUntil" = ${NOW_UTC} + make_interval(secs => $4)
      WHERE id = $1 AND status = $2::"RequestStatus" AND status IN ('STAGING', 'PENDING', 'PROCESSING')
        AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})
      RETURNING id`,
    [id, status, owner, leaseMs / 1000],
  );
  return taken.length === 1;
}

/** Renews the leases `owner` holds on `ids`. */
export async function extendLeases(query: Query, owner: string, ids: string[], leaseMs: number): Promise<void> {
  await query(
    `UPDATE "IntegrationRequest" SET "lockedUntil" = ${NOW_UTC} + make_interval(secs => $3) WHERE id = ANY($1) AND "lockedBy" = $2`,
    [ids, owner, leaseMs / 1000],
  );
}

/** Hands the leases `owner` holds on `ids` back to the queue: another worker may take them at once. */
export async function handBackLeases(query: Query, owner: string, ids: string[]): Promise<void> {
  await query(
    `UPDATE "IntegrationRequest" SET "lockedBy" = NULL, "lockedUntil" = NULL WHERE id = ANY($1) AND "lockedBy" = $2`,
    [ids, owner],
  );
}

/** After an unexpected failure of a step: the lease is released and the step is due again in a few seconds. */
export async function releaseForRetry(query: Query, owner: string, id: string, afterSeconds = 5): Promise<void> {
  await query(
    `UPDATE "IntegrationRequest" SET "lockedBy" = NULL, "lockedUntil" = NULL, "nextAttemptAt" = ${NOW_UTC} + make_interval(secs => $3)
      WHERE id = $1 AND "lockedBy" = $2`,
    [id, owner, afterSeconds],
  );
}
