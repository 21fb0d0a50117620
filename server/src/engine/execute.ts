import type { IntegrationType, RequestStatus } from '@shared/statuses';
import { PermanentError, TransientError, type Exchange, type Outcome } from '../integrations/types';
import { pollDelayMs, retryDelayMs } from './backoff';
import type { EngineDeps } from './deps';
import { currentAccountId, driverContext, loadDestination } from './destination';
import type { FinishingStep, StepUpdate } from './finish';
import { NOW_UTC, type AuditRow, type Query } from './sql';
import { assertTransition, isActive } from './state-machine';

type Phase = 'initiate' | 'check';

/** A leased integration request with what its step needs, as `claimDueSteps` returns it. */
export interface Claimed {
  id: string;
  status: RequestStatus;
  /** Already counting this step when it is a deletion attempt. */
  attempts: number;
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
  organizationId: string;
  integration: { accountId: string | null } | null;
  /** The sealed credentials of the account the step uses (null when it has none or it is gone). */
  secretCipher: string | null;
}

/** What a step did, for metrics: RETRY when it will be tried again, null when there was nothing to run. */
export interface StepReport {
  integrationType: IntegrationType;
  status: RequestStatus | 'RETRY';
  /** When the step fell due, to measure how long it waited for a worker. */
  dueAt: Date | null;
}

const isInitiation = (ir: { trackingId: string | null; status: RequestStatus }) => !ir.trackingId || ir.status === 'STAGING';

/**
 * Leases up to `limit` due integration requests for `workerId` (FOR UPDATE SKIP LOCKED, so
 * workers never share one) and returns what their steps need, in one statement. A step
 * that sends a deletion counts its attempt here, before the call, so a crash loop still
 * runs out of attempts.
 */
export async function claimDueSteps(query: Query, workerId: string, leaseMs: number, limit: number): Promise<Claimed[]> {
  const rows = await query<Omit<Claimed, 'integration'> & { hasIntegration: boolean; integrationAccountId: string | null }>(
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
       RETURNING ir.id, ir.status::text AS status, ir.attempts, ir."trackingId", ir."integrationType"::text AS "integrationType", ir."configSnapshot",
                 ir."accountId", ir."startedAt", ir."createdAt", due."nextAttemptAt" AS "dueAt", ir."deletionRequestId", ir."integrationId"
     )
     SELECT c.*, dr.identifier, dr."organizationId", (i.id IS NOT NULL) AS "hasIntegration", i."accountId" AS "integrationAccountId", a."secretCipher"
       FROM claimed c
       JOIN "DeletionRequest" dr ON dr.id = c."deletionRequestId"
       LEFT JOIN "Integration" i ON i.id = c."integrationId"
       LEFT JOIN "Account" a ON a.id = CASE WHEN i.id IS NOT NULL THEN i."accountId" ELSE c."accountId" END AND a."organizationId" = dr."organizationId"`,
    [workerId, leaseMs / 1000, limit],
  );
  return rows.map(({ hasIntegration, integrationAccountId, ...row }) => ({
    ...row,
    integration: hasIntegration ? { accountId: integrationAccountId } : null,
  }));
}

/**
 * Runs one step of an integration request this worker has leased: the deletion call, or a
 * status check of an accepted async job. `finish` writes the outcome, its audit entries and
 * the parent's roll-up in one transaction, and only while this worker still holds the lease.
 */
export async function executeIntegrationRequest(deps: EngineDeps, ir: Claimed, finish: Finish): Promise<StepReport | null> {
  if (!isActive(ir.status)) return null;
  const id = ir.id;
  const report = (status: StepReport['status']): StepReport => ({ integrationType: ir.integrationType, status, dueAt: ir.dueAt });
  const phase: Phase = isInitiation(ir) ? 'initiate' : 'check';
  const now = new Date();
  const attempt = ir.attempts;
  const trail: Exchange[] = [];
  let outcome: Outcome;
  try {
    if (ir.identifier === null) throw new PermanentError('The identifier was removed by the retention policy');
    const destination = await loadDestination(deps, {
      type: ir.integrationType,
      config: ir.configSnapshot,
      accountId: currentAccountId(ir),
      organizationId: ir.organizationId,
      secretCipher: ir.secretCipher,
    });
    const ctx = driverContext(
      deps,
      destination,
      {
        integrationType: ir.integrationType,
        integrationRequestId: ir.id,
        deletionRequestId: ir.deletionRequestId,
        identifier: ir.identifier,
        trackingId: ir.trackingId,
      },
      trail,
      now,
    );
    if (phase === 'check') {
      outcome = destination.driver.checkStatus
        ? await destination.driver.checkStatus(ctx)
        : { kind: 'success', message: 'Accepted by the destination, which reports no further status' };
    } else {
      outcome = await destination.driver.requestDeletion(ctx);
    }
  } catch (error) {
    if (error instanceof TransientError) outcome = { kind: 'retry', reason: error.message, retryAfterMs: error.retryAfterMs };
    else if (error instanceof PermanentError) outcome = { kind: 'failed', reason: error.message };
    else {
      deps.log.error({ err: error, integrationRequestId: id }, 'integration request failed with an internal error');
      outcome = { kind: 'failed', reason: `Internal error: ${(error as Error).message}` };
      await applyOutcome(deps, finish, ir, phase, attempt, outcome, trail, 'ERROR');
      return report('ERROR');
    }
  }
  const status = await applyOutcome(deps, finish, ir, phase, attempt, outcome, trail);
  return report(outcome.kind === 'retry' && status !== null && isActive(status) ? 'RETRY' : (status ?? ir.status));
}

interface NextState {
  status: RequestStatus;
  data: StepUpdate;
  summary: string;
}

function nextState(deps: EngineDeps, ir: Claimed, phase: Phase, attempt: number, outcome: Outcome, now: Date): NextState {
  const cfg = deps.config;
  const done = (status: RequestStatus, summary: string, lastError: string | null): NextState => ({
    status,
    data: { status, completedAt: now, nextAttemptAt: null, lastError },
    summary,
  });
  const acceptedAt = ir.startedAt ?? ir.createdAt;
  const ageMs = now.getTime() - acceptedAt.getTime();
  const tooOld = phase === 'check' && ageMs > cfg.ASYNC_MAX_AGE_HOURS * 3_600_000;
  switch (outcome.kind) {
    case 'success':
      return done('SUCCESS', outcome.message, null);
    case 'canceled':
      return done('CANCELED', outcome.message, null);
    case 'failed':
      return done('FAILED', outcome.reason, outcome.reason);
    case 'accepted':
      return {
        status: outcome.status,
        data: {
          status: outcome.status,
          trackingId: outcome.trackingId,
          lastError: null,
          nextAttemptAt: new Date(now.getTime() + (outcome.pollAfterMs ?? cfg.ASYNC_POLL_INTERVAL_MS)),
        },
        summary: outcome.message,
      };
    case 'pending':
      if (tooOld) return done('FAILED', `No final status after ${cfg.ASYNC_MAX_AGE_HOURS} hours`, `No final status after ${cfg.ASYNC_MAX_AGE_HOURS} hours`);
      return {
        status: outcome.status,
        data: { status: outcome.status, lastError: null, nextAttemptAt: new Date(now.getTime() + (outcome.pollAfterMs ?? pollDelayMs(ageMs, cfg.ASYNC_POLL_INTERVAL_MS, cfg.ASYNC_POLL_MAX_MS))) },
        summary: outcome.message,
      };
    case 'deferred':
      // Waiting (a vendor's rate limit, a maintenance window) costs no attempt, but not forever.
      if (now.getTime() - ir.createdAt.getTime() > cfg.ASYNC_MAX_AGE_HOURS * 3_600_000) {
        const reason = `Still waiting after ${cfg.ASYNC_MAX_AGE_HOURS} hours: ${outcome.message}`;
        const failed = done('FAILED', reason, reason);
        return { ...failed, data: { ...failed.data, attempts: Math.max(0, attempt - 1) } };
      }
      return {
        status: 'PENDING',
        data: { status: 'PENDING', attempts: Math.max(0, attempt - 1), nextAttemptAt: outcome.until },
        summary: outcome.message,
      };
    case 'retry': {
      if (phase === 'initiate' && attempt >= cfg.MAX_ATTEMPTS) {
        const reason = `Gave up after ${attempt} attempts: ${outcome.reason}`;
        return done('FAILED', reason, reason);
      }
      if (tooOld) return done('FAILED', `No final status after ${cfg.ASYNC_MAX_AGE_HOURS} hours: ${outcome.reason}`, outcome.reason);
      const backoff = phase === 'initiate' ? retryDelayMs(attempt, cfg.RETRY_BASE_MS, cfg.RETRY_MAX_MS) : pollDelayMs(ageMs, cfg.ASYNC_POLL_INTERVAL_MS, cfg.ASYNC_POLL_MAX_MS);
      const waitMs = Math.min(cfg.RETRY_MAX_MS, Math.max(backoff, outcome.retryAfterMs ?? 0));
      return {
        status: ir.status,
        data: { lastError: outcome.reason, nextAttemptAt: new Date(now.getTime() + waitMs) },
        summary: `${outcome.reason}; next try in ${Math.round(waitMs / 1000)} s`,
      };
    }
  }
}

/** Writes a step's outcome; the worker's `StepFinisher` batches them, `finishSteps` is the one-off form. */
export type Finish = (step: FinishingStep) => Promise<RequestStatus | null>;

function applyOutcome(
  deps: EngineDeps,
  finish: Finish,
  ir: Claimed,
  phase: Phase,
  attempt: number,
  outcome: Outcome,
  trail: Exchange[],
  forceStatus?: RequestStatus,
): Promise<RequestStatus | null> {
  const now = new Date();
  const next = forceStatus
    ? { status: forceStatus, data: { status: forceStatus, completedAt: now, nextAttemptAt: null, lastError: (outcome as { reason?: string }).reason ?? null }, summary: (outcome as { reason?: string }).reason ?? forceStatus }
    : nextState(deps, ir, phase, attempt, outcome, now);
  assertTransition(ir.status, next.status);
  const evidence = outcome.kind === 'success' ? outcome.evidence : undefined;
  const entries: AuditRow[] = [
    {
      organizationId: ir.organizationId,
      deletionRequestId: ir.deletionRequestId,
      integrationRequestId: ir.id,
      action: phase === 'initiate' ? 'deletion.requested' : 'deletion.status_checked',
      outcome: next.status,
      summary: phase === 'initiate' ? `Attempt ${attempt}: ${next.summary}` : next.summary,
      details: { attempt, result: outcome.kind, from: ir.status, to: next.status, exchanges: trail, evidence },
    },
  ];
  if (!isActive(next.status)) {
    entries.push({
      organizationId: ir.organizationId,
      deletionRequestId: ir.deletionRequestId,
      integrationRequestId: ir.id,
      action: 'deletion.completed',
      outcome: next.status,
      summary: `Completed with status ${next.status}`,
    });
  }
  return finish({ id: ir.id, deletionRequestId: ir.deletionRequestId, status: next.status, data: next.data, entries });
}
