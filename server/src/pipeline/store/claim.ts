import type { AccountType } from '@shared/integrations';
import type { IntegrationType, RequestStatus } from '@shared/statuses';
import { NOW_UTC, type Query } from './sql';

/** A leased integration request with what its step needs, as `claimDueSteps` returns it. */
export interface Claimed {
  id: string;
  status: RequestStatus;
  /** Already counting this step when it is a deletion attempt. */
  attempts: number;
  /** Attempts of earlier runs (before retries): the step's number is `priorAttempts + attempts`. */
  priorAttempts: number;
  /** When a retry with the current configuration took `configSnapshot`; null: as submitted. */
  configTakenAt: Date | null;
  trackingId: string | null;
  integrationType: IntegrationType;
  configSnapshot: unknown;
  accountId: string | null;
  startedAt: Date | null;
  createdAt: Date;
  /** When the step fell due (before the lease). */
  dueAt: Date | null;
  deletionRequestId: string;
  identifier: string | null;
  /** The request's regulation ("GDPR", "CCPA" or a custom policy's name); null: none recorded. */
  regulation: string | null;
  organizationId: string;
  /** The integration now (null when it was deleted): its account, and its sealed hash key (null until it has one). */
  integration: { id: string; accountId: string | null; hashKeyCipher: string | null } | null;
  /** The sealed credentials of the account the step uses (null when it has none or it is gone). */
  secretCipher: string | null;
  /** The type of that account (which of its fields are secret), null like `secretCipher`. */
  accountType: AccountType | null;
}

/**
 * Leases up to `limit` due integration requests for `workerId` (FOR UPDATE SKIP LOCKED, so
 * workers never share one) and returns what their steps need, in one statement. A step
 * that sends a deletion counts its attempt here, before the call, so a crash loop still
 * runs out of attempts.
 */
export async function claimDueSteps(
  query: Query,
  workerId: string,
  leaseMs: number,
  limit: number,
): Promise<Claimed[]> {
  const rows = await query<
    Omit<Claimed, 'integration'> & {
      integrationId: string;
      hasIntegration: boolean;
      integrationAccountId: string | null;
      hashKeyCipher: string | null;
    }
  >(
    `WITH due AS (
       SELECT id, "nextAttemptAt" FROM "IntegrationRequest"
        WHERE "nextAttemptAt" <= ${NOW_UTC}
          AND status IN ('STAGING', 'PENDING', 'PROCESSING')
          AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})
        ORDER BY "nextAttemptAt"
        LIMIT $3
        FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE "IntegrationRequest" ir
          SET "lockedBy" = $1, "lockedUntil" = ${NOW_UTC} + make_interval(secs => $2),
              attempts = ir.attempts + CASE WHEN ir."trackingId" IS NULL OR ir.status = 'STAGING' THEN 1 ELSE 0 END,
              "startedAt" = COALESCE(ir."startedAt", ${NOW_UTC})
         FROM due WHERE ir.id = due.id
       RETURNING ir.id, ir.status::text AS status, ir.attempts, ir."priorAttempts", ir."configTakenAt", ir."trackingId", ir."integrationType"::text AS "integrationType", ir."configSnapshot",
                 ir."accountId", ir."startedAt", ir."createdAt", due."nextAttemptAt" AS "dueAt", ir."deletionRequestId", ir."integrationId"
     )
     SELECT c.*, CASE WHEN dr.hashed THEN NULL ELSE dr.identifier END AS identifier, dr.regulation, dr."organizationId", (i.id IS NOT NULL) AS "hasIntegration", i."accountId" AS "integrationAccountId", i."hashKeyCipher", a."secretCipher", a.type::text AS "accountType"
       FROM claimed c
       JOIN "DeletionRequest" dr ON dr.id = c."deletionRequestId"
       LEFT JOIN "Integration" i ON i.id = c."integrationId"
       LEFT JOIN "Account" a ON a.id = CASE WHEN i.id IS NOT NULL THEN i."accountId" ELSE c."accountId" END AND a."organizationId" = dr."organizationId"`,
    [workerId, leaseMs / 1000, limit],
  );
  return rows.map(({ hasIntegration, integrationId, integrationAccountId, hashKeyCipher, ...row }) => ({
    ...row,
    integration: hasIntegration ? { id: integrationId, accountId: integrationAccountId, hashKeyCipher } : null,
  }));
}
