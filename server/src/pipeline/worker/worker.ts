import { isDatabaseUnreachable } from '../../db/connections';
import { newLeaseOwner, QueueRunner, type Claim, type QueueSource } from '../../queue/runner';
import { CHANNELS } from '../../queue/wake-up';
import { claimDueStepsInTurn, type Claimed } from '../store/claim';
import { extendLeases, handBackLeases, releaseForRetry } from '../store/leases';
import { pgQuery } from '../store/sql';
import type { EngineDeps } from './deps';
import { StepFinisher } from './finisher';
import { runStep, type StepReport } from './step';
import { untilSlot } from './rate-slots';

export interface WorkerOptions {
  concurrency: number;
  pollIntervalMs: number;
  leaseMs: number;
  /** Called after each step with its duration, for metrics. */
  onStep?: (info: {
    integrationRequestId: string;
    ms: number;
    startedAt: number;
    report?: StepReport | null;
    error?: unknown;
  }) => void;
}

/**
 * Drives integration requests: each integration request row is its own queue entry
 * (`nextAttemptAt`), run by the queue runner (`queue/runner.ts`: leases, LISTEN, heartbeat,
 * stop), so any number of worker processes share one PostgreSQL and each step runs once.
 * What is this queue's own: the claim (`claimDueStepsInTurn`, with each integration's
 * `maxConcurrency` and `maxRequestsPerSecond`) and the step.
 */
export class Worker {
  private readonly runner: QueueRunner<Claimed>;

  constructor(deps: EngineDeps, options: WorkerOptions) {
    const query = pgQuery(deps.pool);
    const owner = newLeaseOwner();
    const finisher = new StepFinisher(deps.pool, owner);
    const source: QueueSource<Claimed> = {
      name: 'deletion worker',
      work: 'deletion work',
      channel: CHANNELS.deletions,
      claim: async (owner, limit, leaseMs): Promise<Claim<Claimed>> => {
        const { steps, examined } = await claimDueStepsInTurn(deps.pool, owner, leaseMs, limit);
        return { items: steps, examined };
      },
      extend: (owner, ids, leaseMs) => extendLeases(query, owner, ids, leaseMs),
      handBack: (owner, ids) => handBackLeases(query, owner, ids),
      run: async (claimed) => {
        const id = claimed.id;
        // A rate-limited destination's call starts at its slot, handed out by the claim.
        await untilSlot(claimed.notBefore);
        const started = Date.now();
        try {
          const report = await runStep(deps, claimed, finisher.finish);
          options.onStep?.({ integrationRequestId: id, ms: Date.now() - started, startedAt: started, report });
        } catch (error) {
          // Unreachable database: the lease expires and the step runs again (same Idempotency-Key).
          if (isDatabaseUnreachable(error))
            deps.log.warn(
              { integrationRequestId: id, reason: (error as Error).message },
              'step outcome not recorded: database unreachable',
            );
          else deps.log.error({ err: error, integrationRequestId: id }, 'integration request step failed');
          options.onStep?.({ integrationRequestId: id, ms: Date.now() - started, startedAt: started, error });
          // After an unexpected failure the step is retried shortly by whichever worker claims it.
          await releaseForRetry(query, owner, id).catch(() => {});
        }
        // A limited destination's rows may be waiting for the slot of its own this step held.
        return claimed.limited;
      },
    };
    this.runner = new QueueRunner(deps.pool, deps.log, source, options, owner);
  }

  get id(): string {
    return this.runner.id;
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  /** Wakes the loop: new work may be due. */
  kick(): void {
    this.runner.kick();
  }

  /**
   * Stops claiming work, waits up to `graceMs` for steps in flight, then hands back the
   * leases of any still running so another worker takes them over at once.
   */
  stop(graceMs = 10_000): Promise<void> {
    return this.runner.stop(graceMs);
  }
}
