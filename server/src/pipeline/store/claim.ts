import type { AccountType } from '@shared/integrations';
import type { IntegrationType, RequestStatus } from '@shared/statuses';
import type pg from 'pg';
import { ADVISORY_LOCKS } from '../../db/advisory-locks';
import { KEPT_PLANS, NOW_UTC, pgQuery, type Query } from './sql';

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
  /** The integration's name when the request was sent (or retried with the current configuration). */
  integrationName: string;
  configSnapshot: unknown;
  /** The identifier type it consumes; null: the request's primary identifier. */
  consumesType: string | null;
  /** The request's identity lookups have not run yet. */
  lookupsPending: boolean;
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
  /** The integration now (null when it was deleted): its account, its sealed hash key (null until it has one) and its `maxConcurrency`. */
  integration: {
    id: string;
    accountId: string | null;
    hashKeyCipher: string | null;
    maxConcurrency: number | null;
  } | null;
  /** The sealed credentials of the account the step uses (null when it has none or it is gone). */
  secretCipher: string | null;
  /** The type of that account (which of its fields are secret), null like `secretCipher`. */
  accountType: AccountType | null;
  /** Its integration has a `maxConcurrency` or a rate: when the step ends, a slot other due rows may wait for is free. */
  limited: boolean;
  /** Its slot under the integration's `maxRequestsPerSecond`: the call starts no earlier (null: at once). */
  notBefore: Date | null;
  /** How many calls that slot stands for (the integration's `callsPerStep` when claimed); null without a rate. */
  slotCalls: number | null;
  /** The time one call takes of the integration's rate (1,000 ms / `maxRequestsPerSecond`): the step's calls leave this far apart; null without a rate. */
  callIntervalMs: number | null;
}

/**
 * How far ahead a claim hands out slots of a rate-limited destination: a call waits at most this
 * long for its slot, holding a place of its worker meanwhile, and claims coming back this often
 * (a step's end, the poll) keep the destination at its rate.
 */
export const RATE_HORIZON_MS = 1_000;

/** Whether integration `i` (an alias or the table's name) has a limit of its own: a `maxConcurrency` or a `maxRequestsPerSecond`. */
const hasLimits = (i: string) => `(${i}."maxConcurrency" IS NOT NULL OR ${i}."maxRequestsPerSecond" IS NOT NULL)`;

/** The database's clock as it ticks (not the transaction's start, which a claim waiting for its turn would lag). */
const CLOCK_UTC = `(clock_timestamp() AT TIME ZONE 'UTC')`;

/** What one claim took, and how many due rows it looked at (all of `limit`: more may be due). */
export interface ClaimResult {
  steps: Claimed[];
  examined: number;
}

/**
 * The claim (see `claimDueSteps`): $1 the worker, $2 the lease in seconds, $3 the most rows, $4
 * `RATE_HORIZON_MS` in seconds. Exported for the test of its plan (`db/integration-request-indexes.test.ts`).
 */
export const CLAIM_STATEMENT = `WITH clock AS (SELECT ${CLOCK_UTC} AS now, ${CLOCK_UTC} + make_interval(secs => $4) AS horizon
   ), limited AS (
     SELECT i.id, i."maxRequestsPerSecond" AS rate, GREATEST(i."nextSlotAt", clock.now) AS "firstSlot",
            GREATEST(i."callsPerStep", 1) AS cps,
            LEAST(
              i."maxConcurrency" - (
                SELECT count(*) FROM "IntegrationRequest" l
                 WHERE l."integrationId" = i.id AND l."lockedBy" IS NOT NULL AND l."lockedUntil" >= ${NOW_UTC}
              ),
              CASE
                WHEN GREATEST(i."nextSlotAt", clock.now) > clock.horizon THEN 0
                WHEN i."maxRequestsPerSecond" IS NOT NULL THEN
                  ceil(extract(epoch FROM clock.horizon - GREATEST(i."nextSlotAt", clock.now)) * i."maxRequestsPerSecond" / GREATEST(i."callsPerStep", 1))
                WHEN i."nextSlotAt" > clock.now THEN 0
              END
            ) AS free
       FROM "Integration" i, clock
      WHERE ${hasLimits('i')} OR i."nextSlotAt" > clock.now
   ), candidates AS (
     -- The due rows in order, numbered per integration: read, not locked, so that the rows a
     -- destination has no slot for are not locked (and logged) by every claim only to be dropped.
     SELECT d.*, row_number() OVER (PARTITION BY d."integrationId" ORDER BY d."nextAttemptAt") AS nth
       FROM (
         SELECT * FROM (
           -- The rows of integrations without limits: the walk of the due index, in order.
           SELECT id, "nextAttemptAt", "integrationId" FROM "IntegrationRequest" ir
            WHERE "nextAttemptAt" <= ${NOW_UTC}
              AND status IN ('STAGING', 'PENDING', 'PROCESSING') AND NOT ir."limited"
              AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})
              -- A filter on the ordered walk (an anti-join would read every due row first): an
              -- integration with a slot pushed by a 429, and one that got its limits after the
              -- row was marked; a request whose integration was deleted has no limit.
              AND (ir."integrationId" IS NULL
                   OR ir."integrationId" <> ALL (ARRAY(SELECT limited.id FROM limited WHERE limited.free <= 0)))
            ORDER BY "nextAttemptAt"
            LIMIT $3
         ) unlimited
         UNION ALL
         -- The "limited" rows, per integration with a free slot, no more than it has free: the
         -- rows of a destination at its limit are not read at all.
         SELECT r.* FROM limited
          CROSS JOIN LATERAL (
            SELECT id, "nextAttemptAt", "integrationId" FROM "IntegrationRequest" ir
             WHERE ir."integrationId" = limited.id AND ir."limited"
               AND ir.status IN ('STAGING', 'PENDING', 'PROCESSING')
               AND ir."nextAttemptAt" <= ${NOW_UTC}
               AND (ir."lockedUntil" IS NULL OR ir."lockedUntil" < ${NOW_UTC})
             ORDER BY ir."nextAttemptAt"
             LIMIT LEAST(limited.free, $3)::bigint
          ) r
          WHERE limited.free > 0
         UNION ALL
         -- Marked rows whose integration was deleted (no limit any more).
         SELECT * FROM (
           SELECT id, "nextAttemptAt", "integrationId" FROM "IntegrationRequest" ir
            WHERE ir."integrationId" IS NULL AND ir."limited"
              AND ir.status IN ('STAGING', 'PENDING', 'PROCESSING')
              AND ir."nextAttemptAt" <= ${NOW_UTC}
              AND (ir."lockedUntil" IS NULL OR ir."lockedUntil" < ${NOW_UTC})
            ORDER BY ir."nextAttemptAt"
            LIMIT $3
         ) orphaned
         ORDER BY "nextAttemptAt"
         LIMIT $3
       ) d
   ), wanted AS MATERIALIZED (
     -- Those within their destination's free slots.
     SELECT c.id, c."nextAttemptAt", c."integrationId", c.nth, limited.rate, limited."firstSlot", limited.cps
       FROM candidates c
       LEFT JOIN limited ON limited.id = c."integrationId"
      WHERE limited.id IS NULL OR c.nth <= limited.free
   ), due AS (
     -- Locked, each found from its candidate by its id (a scan of the due rows, which a planner
     -- with old statistics may prefer for a join, would read them all again; a subquery that locks
     -- is read per row), and checked again: a command may have changed one since it was read (a
     -- next attempt that moved is not the one that was due).
     SELECT w.* FROM wanted w
      CROSS JOIN LATERAL (
        SELECT 1 FROM "IntegrationRequest" ir
         WHERE ir.id = w.id AND ir."nextAttemptAt" = w."nextAttemptAt"
           AND ir.status IN ('STAGING', 'PENDING', 'PROCESSING')
           AND (ir."lockedUntil" IS NULL OR ir."lockedUntil" < ${NOW_UTC})
         FOR UPDATE SKIP LOCKED
      ) locked
   ), allowed AS (
     SELECT id, "nextAttemptAt", "integrationId", nth,
            CASE WHEN rate IS NOT NULL THEN "firstSlot" + make_interval(secs => (nth - 1) * cps / rate) END AS "notBefore",
            CASE WHEN rate IS NOT NULL THEN cps END AS "slotCalls",
            CASE WHEN rate IS NOT NULL THEN 1000 / rate END AS "callIntervalMs"
       FROM due
   ), slots AS (
     -- The next free slot moves past the ones just handed out (never back: a 429 may have pushed it).
     UPDATE "Integration" i
        SET "nextSlotAt" = GREATEST(i."nextSlotAt", taken."firstSlot" + make_interval(secs => taken.last * taken.cps / taken.rate))
       FROM (
         -- Past the last slot handed out (a row skipped as locked leaves its slot unused).
         SELECT limited.id, limited."firstSlot", limited.rate, limited.cps, max(allowed.nth) AS last
           FROM allowed JOIN limited ON limited.id = allowed."integrationId"
          WHERE limited.rate IS NOT NULL
          GROUP BY limited.id, limited."firstSlot", limited.rate, limited.cps
       ) taken
      WHERE i.id = taken.id
   ), claimed AS (
     UPDATE "IntegrationRequest" ir
        SET "lockedBy" = $1, "lockedUntil" = ${NOW_UTC} + make_interval(secs => $2),
            attempts = ir.attempts + CASE WHEN ir."trackingId" IS NULL OR ir.status = 'STAGING' THEN 1 ELSE 0 END,
            "startedAt" = COALESCE(ir."startedAt", ${NOW_UTC})
       FROM allowed WHERE ir.id = allowed.id
     RETURNING ir.id, ir.status::text AS status, ir.attempts, ir."priorAttempts", ir."configTakenAt", ir."trackingId", ir."integrationType"::text AS "integrationType", ir."integrationName", ir."configSnapshotId", ir."consumesType",
               ir."accountId", ir."startedAt", ir."createdAt", allowed."nextAttemptAt" AS "dueAt", allowed."notBefore", allowed."slotCalls", allowed."callIntervalMs", ir."deletionRequestId", ir."integrationId"
   )
   SELECT c.*, cs.config AS "configSnapshot", CASE WHEN dr.hashed THEN NULL ELSE dr.identifier END AS identifier, dr.regulation, dr."organizationId", dr."lookupsPending", (i.id IS NOT NULL) AS "hasIntegration", i."accountId" AS "integrationAccountId", i."hashKeyCipher", i."maxConcurrency", a."secretCipher", a.type::text AS "accountType",
          ${hasLimits('i')} AS limited, (SELECT count(*) FROM candidates)::int AS examined
     FROM claimed c
     JOIN "DeletionRequest" dr ON dr.id = c."deletionRequestId"
     JOIN "ConfigSnapshot" cs ON cs.id = c."configSnapshotId"
     LEFT JOIN "Integration" i ON i.id = c."integrationId"
     LEFT JOIN "Account" a ON a.id = CASE WHEN i.id IS NOT NULL THEN i."accountId" ELSE c."accountId" END AND a."organizationId" = dr."organizationId"`;

/**
 * Leases up to `limit` due integration requests for `workerId` (FOR UPDATE SKIP LOCKED, so
 * workers never share one) and returns what their steps need, in one statement. A step
 * that sends a deletion counts its attempt here, before the call, so a crash loop still
 * runs out of attempts. An integration with `maxConcurrency` gets no more leases than it has
 * free slots (its leased requests counted): a slow destination holds only its own slots, and
 * the due rows behind it go to the others. An integration with `maxRequestsPerSecond` gets the
 * slots before `RATE_HORIZON_MS` from now, one every `callsPerStep` / rate seconds from its
 * `nextSlotAt` (a second's worth of calls at most, what a vendor's bucket holds), which moves past
 * the last one handed out; its step's calls wait for its slot (`notBefore`). An integration whose
 * `nextSlotAt` lies beyond that (slots taken, or a 429's Retry-After) is skipped: its due rows stay
 * unleased and count no attempt. The running rows of integrations with limits (`limited`) are
 * read per integration, no more than it has free, so a backlog waiting for a destination at its
 * limit costs a claim nothing; the others are walked in the due index's order. Run it under
 * `CLAIM_LOCK` so that two claims do not both count the same free slot.
 */
async function claimDueSteps(query: Query, workerId: string, leaseMs: number, limit: number): Promise<ClaimResult> {
  const rows = await query<
    Omit<Claimed, 'integration'> & {
      integrationId: string;
      hasIntegration: boolean;
      integrationAccountId: string | null;
      hashKeyCipher: string | null;
      maxConcurrency: number | null;
      configSnapshotId: Buffer;
      examined: number;
    }
  >(CLAIM_STATEMENT, [workerId, leaseMs / 1000, limit, RATE_HORIZON_MS / 1000]);
  // A due row is claimed unless its destination's slots are full, and then it is not counted:
  // no rows claimed means none were examined.
  return {
    examined: rows[0]?.examined ?? 0,
    steps: rows.map(
      ({
        hasIntegration,
        integrationId,
        integrationAccountId,
        hashKeyCipher,
        maxConcurrency,
        configSnapshotId: _id,
        examined: _,
        ...row
      }) => ({
        ...row,
        integration: hasIntegration
          ? { id: integrationId, accountId: integrationAccountId, hashKeyCipher, maxConcurrency }
          : null,
      }),
    ),
  };
}

/**
 * `claimDueSteps` in a transaction under one advisory lock, so claims of all worker processes
 * run one after the other and each counts the leases the one before took (within a single
 * statement, two claims would both see the same free slot of a destination). While some
 * integration has a `maxConcurrency`, a rate or a pushed slot, a claim waits for its turn.
 * Without one, a claim that finds another under way takes nothing and looks at nothing: the
 * runners woken by the same notification would otherwise split its few rows into empty and
 * one-row batches (every notification wakes every worker process). The claim under way takes
 * what its worker has room for, and a worker left full with more due wakes the others.
 */
export async function claimDueStepsInTurn(
  pool: pg.Pool,
  workerId: string,
  leaseMs: number,
  limit: number,
): Promise<ClaimResult> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // Waits for the lock only while some destination has a limit; otherwise tries it (the same
    // key, taken again within the transaction when already held) and skips when it is taken.
    // Without limits the claim keeps its generic plan, made once per connection: planned for its
    // parameters, it was planned again on most claims, and planning took longer than running it
    // (a pipeline of 6,000 requests: 2.2 s of planning, 1.7 s of running). With limits, plans for
    // its parameters read the rows of the limited destinations much faster (8,000 requests over
    // five limited destinations: 0.76 ms a claim, 1.93 ms with the generic plan), so PostgreSQL
    // chooses as it does by default (both settings of `KEPT_PLANS` back to their defaults).
    const answers = (await client.query(
      `BEGIN; ${KEPT_PLANS}; SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.claims}), set_config('plan_cache_mode', 'auto', true), set_config('enable_seqscan', 'on', true) WHERE EXISTS (SELECT 1 FROM "Integration" i WHERE ${hasLimits('i')} OR i."nextSlotAt" > ${NOW_UTC}); SELECT pg_try_advisory_xact_lock(${ADVISORY_LOCKS.claims}) AS turn`,
    )) as unknown as pg.QueryResult<{ turn: boolean }>[];
    const result = answers[4]?.rows[0]?.turn
      ? await claimDueSteps(pgQuery(client), workerId, leaseMs, limit)
      : { steps: [], examined: 0 };
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    // A connection that cannot even roll back is closed rather than handed to the next caller.
    client.release(broken);
  }
}

/**
 * Unmarks the running rows of integrations that have no limits any more: a row a request's
 * fan-out marked while its integration's limits were being removed (the trigger that follows the
 * change did not see it) would otherwise wait for a claim of its integration's limits that never
 * comes. Run by the scheduler every minute; returns how many it found.
 */
export async function unmarkUnlimitedRows(query: Query): Promise<number> {
  const rows = await query(
    `UPDATE "IntegrationRequest" ir SET "limited" = false
       FROM "Integration" i
      WHERE NOT ${hasLimits('i')}
        AND ir."integrationId" = i.id AND ir."limited" AND ir.status IN ('STAGING', 'PENDING', 'PROCESSING')
      RETURNING ir.id`,
  );
  return rows.length;
}
