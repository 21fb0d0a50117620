import { NOW_UTC, type Query } from '../../db/query';
import { storableText } from '../../db/storable';

/** A delivery a dispatcher holds the lease on, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  endpointId: string;
  eventType: string;
  body: string;
  attempts: number;
  url: string;
  enabled: boolean;
  secretCipher: string;
  previousSecretCipher: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * Leases up to `limit` due deliveries (FOR UPDATE SKIP LOCKED: dispatchers in any number of
 * processes never take the same row). The attempt is counted now, before the call, so a
 * crash loop still runs out of attempts; an expired lease (a dispatcher that died) makes the
 * row due again, with the same id and body.
 */
export function claimDueDeliveries(
  query: Query,
  dispatcherId: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  return query<ClaimedDelivery>(
    `UPDATE "CallbackDelivery" d
        SET "lockedBy" = $1, "lockedUntil" = ${NOW_UTC} + make_interval(secs => $2::double precision / 1000),
            attempts = d.attempts + 1, "lastAttemptAt" = ${NOW_UTC}, "updatedAt" = ${NOW_UTC}
       FROM "CallbackEndpoint" e
      WHERE d.id IN (SELECT id FROM "CallbackDelivery"
                      WHERE status = 'PENDING' AND "nextAttemptAt" <= ${NOW_UTC}
                        AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})
                      ORDER BY "nextAttemptAt" LIMIT $3 FOR UPDATE SKIP LOCKED)
        AND e.id = d."endpointId"
    RETURNING d.id, d."organizationId", d."endpointId", d."eventType", d.body, d.attempts, e.url, e.enabled,
              e."secretCipher", e."previousSecretCipher", e."previousSecretExpiresAt"`,
    [dispatcherId, leaseMs, limit],
  );
}

/** Keeps the leases of deliveries still being sent. */
export async function extendDeliveryLeases(
  query: Query,
  dispatcherId: string,
  ids: string[],
  leaseMs: number,
): Promise<void> {
  if (ids.length === 0) return;
  await query(
    `UPDATE "CallbackDelivery" SET "lockedUntil" = ${NOW_UTC} + make_interval(secs => $3::double precision / 1000)
      WHERE id = ANY($2::text[]) AND "lockedBy" = $1`,
    [dispatcherId, ids, leaseMs],
  );
}

export type DeliveryOutcome =
  | { kind: 'delivered'; statusCode: number }
  | { kind: 'retry'; statusCode: number | null; error: string; delayMs: number }
  | { kind: 'failed'; statusCode: number | null; error: string };

/** Writes an attempt's outcome, only while this dispatcher still holds the lease (false when it lost it). */
export async function settleDelivery(
  query: Query,
  dispatcherId: string,
  id: string,
  outcome: DeliveryOutcome,
): Promise<boolean> {
  const status = outcome.kind === 'delivered' ? 'DELIVERED' : outcome.kind === 'retry' ? 'PENDING' : 'FAILED';
  const rows = await query(
    `UPDATE "CallbackDelivery"
        SET status = $3::text::"CallbackDeliveryStatus", "lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ${NOW_UTC},
            "lastStatusCode" = $4::int, "lastError" = $5::text,
            "nextAttemptAt" = CASE WHEN $3::text = 'PENDING' THEN ${NOW_UTC} + make_interval(secs => $6::double precision / 1000) END,
            "deliveredAt" = CASE WHEN $3::text = 'DELIVERED' THEN ${NOW_UTC} ELSE "deliveredAt" END
      WHERE id = $1 AND "lockedBy" = $2
    RETURNING id`,
    [
      id,
      dispatcherId,
      status,
      outcome.statusCode,
      outcome.kind === 'delivered' ? null : storableText(outcome.error),
      outcome.kind === 'retry' ? outcome.delayMs : 0,
    ],
  );
  return rows.length > 0;
}

/** Hands leases back at shutdown: the rows are due again at once, for any dispatcher. */
export async function releaseDeliveries(query: Query, dispatcherId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await query(
    `UPDATE "CallbackDelivery" SET "lockedBy" = NULL, "lockedUntil" = NULL, attempts = greatest(attempts - 1, 0) WHERE id = ANY($2::text[]) AND "lockedBy" = $1`,
    [dispatcherId, ids],
  );
}

/** Makes a delivery due again at once with its attempts reset (a resend); false while an attempt holds its lease. */
export async function requeueDelivery(query: Query, id: string): Promise<boolean> {
  const rows = await query(
    `UPDATE "CallbackDelivery" SET status = 'PENDING', attempts = 0, "nextAttemptAt" = ${NOW_UTC}, "updatedAt" = ${NOW_UTC}
      WHERE id = $1 AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})
    RETURNING id`,
    [id],
  );
  return rows.length > 0;
}
