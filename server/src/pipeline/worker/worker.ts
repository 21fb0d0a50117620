import type pg from 'pg';
import { connectClient, isDatabaseUnreachable } from '../../db/connections';
import { claimDueStepsInTurn, type ClaimResult, type Claimed } from '../store/claim';
import { extendLeases, handBackLeases, newLeaseOwner, releaseForRetry } from '../store/leases';
import { pgQuery } from '../store/sql';
import type { EngineDeps } from './deps';
import { StepFinisher } from './finisher';
import { runStep, type StepReport } from './step';
import { WORK_CHANNEL } from './wake-up';

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
 * Drives integration requests. Each integration request row is its own queue entry
 * (`nextAttemptAt`); workers lease due rows with FOR UPDATE SKIP LOCKED, so any number of
 * worker processes share one PostgreSQL and each step runs once. A crashed worker's lease
 * expires and another worker picks the row up. LISTEN/NOTIFY wakes idle workers at once.
 */
export class Worker {
  readonly id = newLeaseOwner();
  private running = false;
  private inFlight = new Map<string, Promise<void>>();
  private wakeUp: (() => void) | null = null;
  private wakePending = false;
  /** New work may be due: set by a notification or the poll, cleared by a claim that found fewer steps than it asked for. */
  private maybeDue = true;
  private listener: pg.Client | null = null;
  /** No LISTEN attempt before this time (the database may be down: do not try on every turn). */
  private listenRetryAt = 0;
  /** When the database became unreachable for this worker; null while it answers. */
  private unreachableSince: number | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private loopDone: Promise<void> | null = null;
  private readonly finisher: StepFinisher;

  constructor(
    private readonly deps: EngineDeps,
    private readonly options: WorkerOptions,
  ) {
    this.finisher = new StepFinisher(deps.pool, this.id);
  }

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.heartbeat = setInterval(() => void this.extendLeases(), Math.max(500, this.options.leaseMs / 3));
    this.heartbeat.unref();
    this.loopDone = this.loop();
    this.deps.log.info({ workerId: this.id, concurrency: this.options.concurrency }, 'deletion worker started');
  }

  /** Wakes the loop: new work may be due. */
  kick(): void {
    this.maybeDue = true;
    this.wake();
  }

  private wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.wakePending = true;
  }

  /**
   * Stops claiming work, waits up to `graceMs` for steps in flight, then hands back the
   * leases of any still running so another worker takes them over at once.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.kick();
    await this.loopDone;
    const pending = [...this.inFlight.values()];
    await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, graceMs))]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    const leftover = [...this.inFlight.keys()];
    if (leftover.length > 0) {
      await handBackLeases(pgQuery(this.deps.pool), this.id, leftover).catch(() => {});
    }
    await this.listener?.end().catch(() => {});
    this.deps.log.info({ workerId: this.id, handedBack: leftover.length }, 'deletion worker stopped');
  }

  private async listen(): Promise<void> {
    if (Date.now() < this.listenRetryAt) return;
    const options = (this.deps.pool as unknown as { options: pg.ClientConfig }).options;
    let client: pg.Client | null = null;
    try {
      client = await connectClient(options, () => {
        // Connection lost (restart, failover): reconnect from the loop; polling covers the gap,
        // and notifications sent meanwhile are lost, so look for due work at once.
        if (this.listener === client) this.listener = null;
        this.listenRetryAt = Date.now() + 1_000;
        this.kick();
      });
      client.on('notification', () => this.kick());
      await client.query(`LISTEN ${WORK_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.listenRetryAt = Date.now() + 5_000;
      if (!isDatabaseUnreachable(error))
        this.deps.log.warn({ err: error }, 'could not LISTEN for new work; polling only');
      await client?.end().catch(() => {});
    }
  }

  /** Logs an outage once when it starts and once when it ends, not on every poll. */
  private databaseAnswered(error?: unknown): void {
    if (error === undefined) {
      if (this.unreachableSince !== null) {
        this.deps.log.warn(
          { workerId: this.id, unreachableMs: Date.now() - this.unreachableSince },
          'database reachable again; deletion work resumed',
        );
        this.unreachableSince = null;
      }
      return;
    }
    if (!isDatabaseUnreachable(error)) {
      this.deps.log.error({ err: error }, 'claiming work failed');
      return;
    }
    if (this.unreachableSince === null) {
      this.unreachableSince = Date.now();
      this.deps.log.error(
        { workerId: this.id, err: error },
        'database unreachable; deletion work paused until it answers again',
      );
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const free = this.options.concurrency - this.inFlight.size;
      let fullBatch = false;
      if (free > 0) {
        try {
          const { steps, examined } = await this.claim(free);
          this.databaseAnswered();
          // A full batch of due rows means more may be waiting (also when a destination's own
          // limit left some of them behind); a short one means the queue was drained.
          fullBatch = examined === free;
          this.maybeDue = fullBatch;
          for (const step of steps) this.run(step);
        } catch (error) {
          this.databaseAnswered(error);
        }
      }
      if (!this.listener && this.running) await this.listen();
      // Full batch: more may be due now. Otherwise sleep until woken or the poll interval.
      if (!fullBatch || this.inFlight.size >= this.options.concurrency) await this.sleep(this.options.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.wakePending || !this.running) {
      this.wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  private run(claimed: Claimed): void {
    const id = claimed.id;
    const started = Date.now();
    const step = runStep(this.deps, claimed, this.finisher.finish)
      .then(
        (report) =>
          this.options.onStep?.({ integrationRequestId: id, ms: Date.now() - started, startedAt: started, report }),
        (error) => {
          // Unreachable database: the lease expires and the step runs again (same Idempotency-Key).
          if (isDatabaseUnreachable(error))
            this.deps.log.warn(
              { integrationRequestId: id, reason: (error as Error).message },
              'step outcome not recorded: database unreachable',
            );
          else this.deps.log.error({ err: error, integrationRequestId: id }, 'integration request step failed');
          this.options.onStep?.({ integrationRequestId: id, ms: Date.now() - started, startedAt: started, error });
          return this.releaseLease(id);
        },
      )
      .finally(() => {
        this.inFlight.delete(id);
        // A slot is free: worth a claim only if work may be waiting (else the next notification or poll brings it);
        // a limited destination's rows may be waiting for the slot of its own this step held.
        if (this.maybeDue || claimed.limited) this.wake();
      });
    this.inFlight.set(id, step);
  }

  private claim(limit: number): Promise<ClaimResult> {
    return claimDueStepsInTurn(this.deps.pool, this.id, this.options.leaseMs, limit);
  }

  private async extendLeases(): Promise<void> {
    const ids = [...this.inFlight.keys()];
    if (ids.length === 0) return;
    await extendLeases(pgQuery(this.deps.pool), this.id, ids, this.options.leaseMs).catch((error) => {
      // During an outage the loop has said so once already.
      if (!isDatabaseUnreachable(error)) this.deps.log.warn({ err: error }, 'could not extend leases');
    });
  }

  /** After an unexpected failure the step is retried shortly by whichever worker claims it. */
  private async releaseLease(id: string): Promise<void> {
    await releaseForRetry(pgQuery(this.deps.pool), this.id, id).catch(() => {});
  }
}
