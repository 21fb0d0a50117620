import type { RequestStatus } from '@shared/statuses';
import type { Prisma } from '../generated/prisma/client';
import { PermanentError, TransientError, type Exchange, type Outcome } from '../integrations/types';
import { recordAudit } from '../services/audit/record-audit';
import { pollDelayMs, retryDelayMs } from './backoff';
import type { EngineDeps } from './deps';
import { currentAccountId, driverContext, loadDestination } from './destination';
import { lockDeletionRequest, rollUpDeletionRequest } from './roll-up';
import { assertTransition, isActive } from './state-machine';

type Phase = 'initiate' | 'check';

interface Claimed {
  id: string;
  status: RequestStatus;
  attempts: number;
  trackingId: string | null;
  integrationType: Prisma.IntegrationRequestGetPayload<object>['integrationType'];
  configSnapshot: Prisma.JsonValue;
  accountId: string | null;
  startedAt: Date | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  deletionRequestId: string;
  integration: { accountId: string | null } | null;
  deletionRequest: { identifier: string | null; organizationId: string };
}

/** What a step did, for metrics: RETRY when it will be tried again, null when there was nothing to run. */
export interface StepReport {
  integrationType: Claimed['integrationType'];
  status: RequestStatus | 'RETRY';
  /** When the step fell due, to measure how long it waited for a worker. */
  dueAt: Date | null;
}

/**
 * Runs one step of an integration request this worker has leased: the deletion call, or a
 * status check of an accepted async job. The outcome, its audit entry and the parent's
 * roll-up are written in one transaction, and only while this worker still holds the lease.
 */
export async function executeIntegrationRequest(deps: EngineDeps, id: string, workerId: string): Promise<StepReport | null> {
  const ir = (await deps.prisma.integrationRequest.findFirst({
    where: { id, lockedBy: workerId },
    select: {
      id: true,
      status: true,
      attempts: true,
      trackingId: true,
      integrationType: true,
      configSnapshot: true,
      accountId: true,
      startedAt: true,
      createdAt: true,
      nextAttemptAt: true,
      deletionRequestId: true,
      integration: { select: { accountId: true } },
      deletionRequest: { select: { identifier: true, organizationId: true } },
    },
  })) as Claimed | null;
  if (!ir || !isActive(ir.status)) return null;
  const report = (status: StepReport['status']): StepReport => ({ integrationType: ir.integrationType, status, dueAt: ir.nextAttemptAt });
  const phase: Phase = ir.trackingId && ir.status !== 'STAGING' ? 'check' : 'initiate';
  const now = new Date();
  const attempt = phase === 'initiate' ? ir.attempts + 1 : ir.attempts;
  if (phase === 'initiate') {
    // Counted before the call, so a crash loop still runs out of attempts.
    await deps.prisma.integrationRequest.updateMany({ where: { id, lockedBy: workerId }, data: { attempts: attempt, startedAt: ir.startedAt ?? now } });
  }
  const trail: Exchange[] = [];
  let outcome: Outcome;
  try {
    if (ir.deletionRequest.identifier === null) throw new PermanentError('The identifier was removed by the retention policy');
    const destination = await loadDestination(deps, {
      type: ir.integrationType,
      config: ir.configSnapshot,
      accountId: currentAccountId(ir),
      organizationId: ir.deletionRequest.organizationId,
    });
    const ctx = driverContext(
      deps,
      destination,
      {
        integrationType: ir.integrationType,
        integrationRequestId: ir.id,
        deletionRequestId: ir.deletionRequestId,
        identifier: ir.deletionRequest.identifier,
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
      await applyOutcome(deps, ir, workerId, phase, attempt, outcome, trail, 'ERROR');
      return report('ERROR');
    }
  }
  const status = await applyOutcome(deps, ir, workerId, phase, attempt, outcome, trail);
  return report(outcome.kind === 'retry' && status !== null && isActive(status) ? 'RETRY' : (status ?? ir.status));
}

interface NextState {
  status: RequestStatus;
  data: Prisma.IntegrationRequestUpdateManyMutationInput;
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

async function applyOutcome(
  deps: EngineDeps,
  ir: Claimed,
  workerId: string,
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
  return deps.prisma.$transaction(async (tx) => {
    await lockDeletionRequest(tx, ir.deletionRequestId);
    const updated = await tx.integrationRequest.updateMany({
      where: { id: ir.id, lockedBy: workerId },
      data: { ...next.data, lockedBy: null, lockedUntil: null },
    });
    // Lease lost (this worker stalled past it): the new owner records the outcome instead.
    if (updated.count === 0) return null;
    const evidence = outcome.kind === 'success' ? outcome.evidence : undefined;
    await recordAudit(tx, null, {
      organizationId: ir.deletionRequest.organizationId,
      deletionRequestId: ir.deletionRequestId,
      integrationRequestId: ir.id,
      action: phase === 'initiate' ? 'deletion.requested' : 'deletion.status_checked',
      outcome: next.status,
      summary: phase === 'initiate' ? `Attempt ${attempt}: ${next.summary}` : next.summary,
      details: JSON.parse(JSON.stringify({ attempt, result: outcome.kind, from: ir.status, to: next.status, exchanges: trail, evidence })) as Prisma.InputJsonValue,
    });
    if (!isActive(next.status)) {
      await recordAudit(tx, null, {
        organizationId: ir.deletionRequest.organizationId,
        deletionRequestId: ir.deletionRequestId,
        integrationRequestId: ir.id,
        action: 'deletion.completed',
        outcome: next.status,
        summary: `Completed with status ${next.status}`,
      });
    }
    await rollUpDeletionRequest(tx, ir.deletionRequestId);
    return next.status;
  });
}
