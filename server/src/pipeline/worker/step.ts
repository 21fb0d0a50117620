import { randomUUID } from 'node:crypto';
import type { IntegrationType, RequestStatus } from '@shared/statuses';
import { identifierRedactor, redactOutcome } from '../../integrations/runtime/redaction';
import { PermanentError, TransientError, type Exchange, type Outcome } from '../../integrations/types';
import { currentAccountId, openDestination } from '../../services/integrations/destination';
import { manualTaskPort } from '../../services/manual-tasks/task-port';
import type { Claimed } from '../store/claim';
import type { FinishingStep, StepUpdate } from '../store/finish';
import type { AuditRow } from '../store/sql';
import { pollDelayMs, retryDelayMs } from './backoff';
import type { EngineDeps } from './deps';
import { assertTransition, isActive } from '../state-machine';
import { errorForLog } from '../../lib/logger';
import { NO_IDENTIFIER_OF_TYPE } from '@shared/identifiers';
import { integrationSubject, type Subject } from '../store/identities';
import { pgQuery } from '../store/sql';
import { forEachIdentifier } from './each-identifier';
import { ensureIdentities } from './identities';
import { callPacer, rateLimitedUntil } from './rate-slots';
import { pushNextSlot, settleSlotCalls } from '../store/slots';

type Phase = 'initiate' | 'check';

/** What a step did, for metrics: RETRY when it will be tried again, null when there was nothing to run. */
export interface StepReport {
  integrationType: IntegrationType;
  status: RequestStatus | 'RETRY';
  /** When the step fell due, to measure how long it waited for a worker. */
  dueAt: Date | null;
}

/** Writes a step's outcome; the worker's `StepFinisher` batches them, `finishSteps` is the one-off form. */
export type Finish = (step: FinishingStep) => Promise<RequestStatus | null>;

const isInitiation = (ir: { trackingId: string | null; status: RequestStatus }) =>
  !ir.trackingId || ir.status === 'STAGING';

/**
 * Runs one step of an integration request this worker has leased: the deletion call, or a
 * status check of an accepted async job. `finish` writes the outcome, its audit entries and
 * the parent's roll-up in one transaction, and only while this worker still holds the lease.
 */
export function runStep(deps: EngineDeps, claimed: Claimed, finish: Finish): Promise<StepReport | null> {
  return new Step(deps, claimed, finish).run();
}

/** One step of one integration request: what it runs on, and what it has recorded so far. */
class Step {
  readonly phase: Phase;
  /** The attempt this step is (already counted by the claim when it sends a deletion). */
  readonly attempt: number;
  /** Exchanges with the destination, for the audit entry. */
  readonly trail: Exchange[] = [];
  /** Where the destination's own exchanges start in `trail` (after identity lookups); none yet: its end. */
  private destinationTrailFrom = Number.POSITIVE_INFINITY;
  readonly startedAt = new Date();
  /**
   * Blanks the subject's identifier out of what the destination said (its reason becomes the
   * request's status reason), and the account's secrets once the account is loaded.
   */
  private redact: (text: string) => string;

  constructor(
    private readonly deps: EngineDeps,
    readonly ir: Claimed,
    private readonly finish: Finish,
  ) {
    this.phase = isInitiation(ir) ? 'initiate' : 'check';
    this.attempt = ir.attempts;
    this.redact = identifierRedactor(ir.identifier);
  }

  async run(): Promise<StepReport | null> {
    const ir = this.ir;
    if (!isActive(ir.status)) return null;
    // Every claim of a deletion counts an attempt before the call. Past the budget, the attempts
    // before never recorded an outcome (the worker died during each, or could not write what
    // it got): stop rather than call the destination again and again.
    if (this.phase === 'initiate' && this.attempt > this.deps.config.MAX_ATTEMPTS) {
      await this.record(
        {
          kind: 'failed',
          reason: `Stopped after ${this.deps.config.MAX_ATTEMPTS} attempts whose outcome was never recorded (the worker stopped during each, or could not store what the destination answered); retry once the cause is fixed`,
        },
        'ERROR',
      );
      return this.report('ERROR');
    }
    let outcome: Outcome;
    try {
      outcome = redactOutcome(await this.callDestination(), this.redact);
    } catch (error) {
      if (error instanceof TransientError)
        outcome = { kind: 'retry', reason: this.redact(error.message), retryAfterMs: error.retryAfterMs };
      else if (error instanceof PermanentError) outcome = { kind: 'failed', reason: this.redact(error.message) };
      else {
        // Members see a reference and a plain sentence; the detail, with the same reference, is in the log only.
        const reference = randomUUID();
        this.deps.log.error(
          { err: errorForLog(error, this.redact), integrationRequestId: ir.id, reference },
          'integration request failed with an internal error',
        );
        await this.record(
          {
            kind: 'failed',
            reason: `An internal error stopped this deletion (reference ${reference}); the operators have the details.`,
          },
          'ERROR',
        );
        return this.report('ERROR');
      }
    }
    await this.holdBackOnRateLimit(outcome);
    const status = await this.record(outcome);
    return this.report(
      outcome.kind === 'retry' && status !== null && isActive(status) ? 'RETRY' : (status ?? ir.status),
    );
  }

  /**
   * A 429 naming a wait pushes the integration's next slot there: the other workers' calls wait
   * too. A step of a rate-limited integration that made more calls than its slot stood for takes
   * slots for them, and the integration learns how many calls a step makes.
   */
  private async holdBackOnRateLimit(outcome: Outcome): Promise<void> {
    const integration = this.ir.integration;
    if (!integration) return;
    const query = pgQuery(this.deps.pool);
    const now = new Date();
    const until = rateLimitedUntil(this.trail, outcome, now);
    // Never beyond the age limit, at which the waiting requests are tried once more (and fail if put off again).
    const latest = now.getTime() + this.deps.config.ASYNC_MAX_AGE_HOURS * 3_600_000;
    if (until) await pushNextSlot(query, integration.id, new Date(Math.min(until.getTime(), latest)));
    if (this.ir.slotCalls === null) return;
    const calls = this.trail.slice(this.destinationTrailFrom).filter((exchange) => exchange.kind === 'http').length;
    // A step that never reached the destination (waiting for the lookups, for a window) says nothing of its calls.
    if (calls > 0) await settleSlotCalls(query, integration.id, calls, this.ir.slotCalls);
  }

  private report(status: StepReport['status']): StepReport {
    return { integrationType: this.ir.integrationType, status, dueAt: this.ir.dueAt };
  }

  private async callDestination(): Promise<Outcome> {
    const ir = this.ir;
    if (ir.identifier === null)
      throw new PermanentError('The identifier was hashed or deleted by the retention policy');
    // The person's other identifiers are looked up once, before any destination is sent one.
    const waiting = await ensureIdentities(this.deps, ir, this.trail);
    if (waiting) return waiting;
    // What follows is the destination's: its calls count against its rate (the lookups' do not).
    this.destinationTrailFrom = this.trail.length;
    const subject = await this.subjectValues();
    if ('outcome' in subject) return subject.outcome;
    const { destination, redact, context } = await openDestination(
      this.deps,
      {
        type: ir.integrationType,
        config: ir.configSnapshot,
        accountId: currentAccountId(ir),
        organizationId: ir.organizationId,
        sealed: { secretCipher: ir.secretCipher, type: ir.accountType },
        integration: ir.integration,
        request: {
          integrationType: ir.integrationType,
          integrationRequestId: ir.id,
          deletionRequestId: ir.deletionRequestId,
          regulation: ir.regulation,
          manualTasks: manualTaskPort(this.deps, ir.id),
          maxConcurrency: ir.integration?.maxConcurrency ?? null,
          connections: this.deps.config.CUSTOMER_DB_CONNECTIONS,
        },
        subject: subject.redact,
        pace: callPacer(ir.callIntervalMs),
      },
      this.trail,
      this.startedAt,
    );
    this.redact = redact;
    const call = (identifier: string, trackingId: string | null, at = 0): Promise<Outcome> => {
      const ctx = context({ identifier, trackingId, callKey: subject.values[at]!.callKey });
      if (this.phase === 'initiate') return destination.driver.requestDeletion(ctx);
      return destination.driver.checkStatus
        ? destination.driver.checkStatus(ctx)
        : Promise.resolve({ kind: 'success', message: 'Accepted by the destination, which reports no further status' });
    };
    if (subject.values.length === 1) return call(subject.values[0]!.value, ir.trackingId);
    return forEachIdentifier(
      subject.values.map(({ value }) => value),
      this.phase,
      ir.trackingId,
      call,
    );
  }

  /** The values this integration receives (see `integrationSubject`); none of its type is its own outcome. */
  private async subjectValues(): Promise<Subject | { outcome: Outcome }> {
    const ir = this.ir;
    const subject = await integrationSubject(pgQuery(this.deps.pool), { ...ir, identifier: ir.identifier! });
    if (subject.values.length === 0)
      return {
        outcome: {
          kind: 'failed',
          reason: `${NO_IDENTIFIER_OF_TYPE} ${ir.consumesType} in this request: nothing was sent to this destination. Add one to a new request, or an identity lookup that finds it.`,
        },
      };
    return subject;
  }

  /** Writes the outcome (its new state, audit entries, the parent's roll-up); `forceStatus` for an internal error. */
  private record(outcome: Outcome, forceStatus?: RequestStatus): Promise<RequestStatus | null> {
    const ir = this.ir;
    const now = new Date();
    const reason = (outcome as { reason?: string }).reason;
    const next: NextState = forceStatus
      ? {
          status: forceStatus,
          data: { status: forceStatus, completedAt: now, nextAttemptAt: null, lastError: reason ?? null },
          summary: reason ?? forceStatus,
        }
      : nextState(this.deps, this, outcome, now);
    assertTransition(ir.status, next.status);
    const evidence = outcome.kind === 'success' ? outcome.evidence : undefined;
    // A transient problem on the last attempt ends the request: the entry says it gave up, not "retry".
    const result =
      outcome.kind === 'retry' && !isActive(next.status)
        ? `gave up after ${ir.priorAttempts + this.attempt} attempts`
        : outcome.kind;
    // One entry per step outcome: a step that ends the integration request says so by its
    // outcome (SUCCESS, FAILED, ERROR), which the trail shows as how the deletion ended.
    const entries: AuditRow[] = [
      {
        organizationId: ir.organizationId,
        deletionRequestId: ir.deletionRequestId,
        integrationRequestId: ir.id,
        action: this.phase === 'initiate' ? 'deletion.requested' : 'deletion.status_checked',
        outcome: next.status,
        // Numbered across retries ("Attempt 3" after two failed runs), naming the configuration it ran with.
        summary:
          this.phase === 'initiate' ? `Attempt ${ir.priorAttempts + this.attempt}: ${next.summary}` : next.summary,
        details: {
          attempt: ir.priorAttempts + this.attempt,
          configuration: configurationUsed(ir),
          result,
          from: ir.status,
          to: next.status,
          exchanges: this.trail,
          evidence,
        },
        // Polls that keep getting the same answer ("Status 'queued'") count on one entry.
        foldRepeats: this.phase === 'check' && isActive(next.status),
      },
    ];
    return this.finish({
      id: ir.id,
      deletionRequestId: ir.deletionRequestId,
      status: next.status,
      data: next.data,
      entries,
    });
  }
}

/** "as submitted", or "current at retry, <when>" after a retry with the current configuration. */
function configurationUsed(ir: Pick<Claimed, 'configTakenAt'>): string {
  return ir.configTakenAt ? `current at retry, ${ir.configTakenAt.toISOString()}` : 'as submitted';
}

interface NextState {
  status: RequestStatus;
  data: StepUpdate;
  summary: string;
}

/** The state a step's outcome leads to: the state machine's transitions with the backoff and time limits of the configuration. */
function nextState(deps: EngineDeps, step: Step, outcome: Outcome, now: Date): NextState {
  const { ir, phase, attempt } = step;
  const cfg = deps.config;
  const done = (status: RequestStatus, summary: string, lastError: string | null): NextState => ({
    status,
    data: { status, completedAt: now, nextAttemptAt: null, lastError },
    summary,
  });
  const acceptedAt = ir.startedAt ?? ir.createdAt;
  const ageMs = now.getTime() - acceptedAt.getTime();
  const maxAgeMs = cfg.ASYNC_MAX_AGE_HOURS * 3_600_000;
  const tooOld = phase === 'check' && ageMs > maxAgeMs;
  switch (outcome.kind) {
    case 'success': {
      const success = done('SUCCESS', outcome.message, null);
      if (outcome.evidence) success.data.evidence = outcome.evidence;
      return success;
    }
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
      if (tooOld)
        return done(
          'FAILED',
          `No final status after ${cfg.ASYNC_MAX_AGE_HOURS} hours`,
          `No final status after ${cfg.ASYNC_MAX_AGE_HOURS} hours`,
        );
      return {
        status: outcome.status,
        data: {
          status: outcome.status,
          lastError: null,
          nextAttemptAt: new Date(
            now.getTime() +
              (outcome.pollAfterMs ?? pollDelayMs(ageMs, cfg.ASYNC_POLL_INTERVAL_MS, cfg.ASYNC_POLL_MAX_MS)),
          ),
        },
        summary: outcome.message,
      };
    case 'deferred':
      // Waiting (a vendor's rate limit, a maintenance window) costs no attempt, but not forever.
      if (ageMs > maxAgeMs) {
        const reason = `Still waiting after ${cfg.ASYNC_MAX_AGE_HOURS} hours: ${outcome.message}`;
        const failed = done('FAILED', reason, reason);
        return { ...failed, data: { ...failed.data, attempts: Math.max(0, attempt - 1) } };
      }
      // A vendor's wait named beyond the age limit (a Retry-After of days) is cut to it: the request
      // is tried once more then, and fails if still put off, instead of waiting past its deadline.
      // The integration's own maintenance window is kept: at its opening the deletion runs.
      return {
        status: 'PENDING',
        data: {
          status: 'PENDING',
          attempts: Math.max(0, attempt - 1),
          nextAttemptAt: outcome.scheduled
            ? outcome.until
            : new Date(Math.min(outcome.until.getTime(), acceptedAt.getTime() + maxAgeMs + 1_000)),
        },
        summary: outcome.message,
      };
    case 'retry': {
      if (phase === 'initiate' && attempt >= cfg.MAX_ATTEMPTS) {
        const reason = `Gave up after ${attempt} attempts: ${outcome.reason}`;
        return done('FAILED', reason, reason);
      }
      if (tooOld)
        return done(
          'FAILED',
          `No final status after ${cfg.ASYNC_MAX_AGE_HOURS} hours: ${outcome.reason}`,
          outcome.reason,
        );
      const backoff =
        phase === 'initiate'
          ? retryDelayMs(attempt, cfg.RETRY_BASE_MS, cfg.RETRY_MAX_MS)
          : pollDelayMs(ageMs, cfg.ASYNC_POLL_INTERVAL_MS, cfg.ASYNC_POLL_MAX_MS);
      const waitMs = Math.min(cfg.RETRY_MAX_MS, Math.max(backoff, outcome.retryAfterMs ?? 0));
      return {
        status: ir.status,
        data: { lastError: outcome.reason, nextAttemptAt: new Date(now.getTime() + waitMs) },
        summary: `${outcome.reason}; next try in ${Math.round(waitMs / 1000)} s`,
      };
    }
  }
}
