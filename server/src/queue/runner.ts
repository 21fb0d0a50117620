import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { connectClient, isDatabaseUnreachable } from '../db/connections';
import type { Logger } from '../lib/logger';
import { wake, type Channel } from './wake-up';

/** A lease holder's id: host, process and a random suffix, unique per runner (or per one-off holder such as a cancel). */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** What one claim took, and how many due rows it looked at (all of `limit`: more may be due). */
export interface Claim<T> {
  items: T[];
  examined: number;
}

/**
 * One queue as a runner drives it: its rows (each row its own queue entry, leased with
 * FOR UPDATE SKIP LOCKED), its channel, and what running one row means. The statements live
 * with the queue's tables (`pipeline/store`, `callbacks/store`); the mechanics live here.
 */
export interface QueueSource<T extends { id: string }> {
  /** How log lines name the runner ("deletion worker") and its work ("deletion work"). */
  readonly name: string;
  readonly work: string;
  readonly channel: Channel;
  /** Leases up to `limit` due rows for `owner` until now + `leaseMs`. */
  claim(owner: string, limit: number, leaseMs: number): Promise<Claim<T>>;
  /** Renews the leases `owner` holds on `ids` (the heartbeat, while they run). */
  extend(owner: string, ids: string[], leaseMs: number): Promise<void>;
  /** Hands leases back at stop: the rows are due again at once, for any runner. */
  handBack(owner: string, ids: string[]): Promise<void>;
  /**
   * Runs one leased row and writes its outcome (only while `owner` still holds the lease).
   * Resolves true when its end frees a slot that due rows may be waiting for: look again now.
   */
  run(item: T, owner: string): Promise<boolean | void>;
}

export interface RunnerOptions {
  /** Rows run at once by this runner. */
  concurrency: number;
  /** How often an idle runner looks for due rows when no notification arrives. */
  pollIntervalMs: number;
  /** How long a lease lasts without a heartbeat; renewed every third of it while a row runs. */
  leaseMs: number;
}

/**
 * Drives one queue: claims due rows up to its concurrency, runs them, renews their leases
 * while they run, and sleeps until a notification on the queue's channel (LISTEN) or the
 * poll interval. Any number of runners in any number of processes share one PostgreSQL; a
 * runner that dies lets its leases expire and another takes the rows. A lost LISTEN
 * connection (database restart, failover) is retried from the loop while polling covers the
 * gap; an unreachable database pauses the runner, logged once when it starts and once when
 * it ends, and no process exits for it. `stop` stops claiming, gives running rows a grace
 * period and hands back the leases of those still running.
 */
export class QueueRunner<T extends { id: string }> {
  readonly id: string;
  private running = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private wakeUp: (() => void) | null = null;
  private wakePending = false;
  /** New work may be due: set by a notification or the poll, cleared by a claim that found fewer rows than it asked for. */
  private maybeDue = true;
  private listener: pg.Client | null = null;
  /** No LISTEN attempt before this time (the database may be down: do not try on every turn). */
  private listenRetryAt = 0;
  /** When the database became unreachable for this runner; null while it answers. */
  private unreachableSince: number | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private loopDone: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
    private readonly source: QueueSource<T>,
    private readonly options: RunnerOptions,
    id = newLeaseOwner(),
  ) {
    this.id = id;
  }

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.heartbeat = setInterval(() => void this.extendLeases(), Math.max(250, this.options.leaseMs / 3));
    this.heartbeat.unref();
    this.loopDone = this.loop();
    this.log.info({ runnerId: this.id, concurrency: this.options.concurrency }, `${this.source.name} started`);
  }

  /** Wakes the loop: new work may be due. */
  kick(): void {
    this.maybeDue = true;
    this.wake();
  }

  /** Stops claiming, waits up to `graceMs` for rows in flight, then hands back the leases of any still running. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.kick();
    await this.loopDone;
    const pending = [...this.inFlight.values()];
    await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, graceMs))]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    const leftover = [...this.inFlight.keys()];
    if (leftover.length > 0) await this.source.handBack(this.id, leftover).catch(() => {});
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
    this.log.info({ runnerId: this.id, handedBack: leftover.length }, `${this.source.name} stopped`);
  }

  private wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.wakePending = true;
  }

  private async listen(): Promise<void> {
    if (Date.now() < this.listenRetryAt) return;
    const options = (this.pool as unknown as { options: pg.ClientConfig }).options;
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
      await client.query(`LISTEN ${this.source.channel}`);
      if (!this.running) throw new Error('stopped');
      this.listener = client;
    } catch (error) {
      this.listenRetryAt = Date.now() + 5_000;
      if (this.running && !isDatabaseUnreachable(error))
        this.log.warn({ err: error }, `could not LISTEN for ${this.source.work}; polling only`);
      await client?.end().catch(() => {});
    }
  }

  /** Logs an outage once when it starts and once when it ends, not on every poll. */
  private databaseAnswered(error?: unknown): void {
    if (error === undefined) {
      if (this.unreachableSince !== null) {
        this.log.warn(
          { runnerId: this.id, unreachableMs: Date.now() - this.unreachableSince },
          `database reachable again; ${this.source.work} resumed`,
        );
        this.unreachableSince = null;
      }
      return;
    }
    if (!isDatabaseUnreachable(error)) {
      this.log.error({ err: error }, `claiming ${this.source.work} failed`);
      return;
    }
    if (this.unreachableSince === null) {
      this.unreachableSince = Date.now();
      this.log.error(
        { runnerId: this.id, err: error },
        `database unreachable; ${this.source.work} paused until it answers again`,
      );
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const free = this.options.concurrency - this.inFlight.size;
      let fullBatch = false;
      if (free > 0) {
        try {
          const { items, examined } = await this.source.claim(this.id, free, this.options.leaseMs);
          this.databaseAnswered();
          // A full batch of due rows means more may be waiting (also when a limit of the
          // queue's own left some of them behind); a short one means the queue was drained.
          fullBatch = examined === free;
          this.maybeDue = fullBatch;
          for (const item of items) this.run(item);
          // Full, with more due: the other runners may have room (a claim that found this one
          // under way took nothing and went back to sleep).
          if (fullBatch && this.inFlight.size >= this.options.concurrency) wake(this.pool, this.source.channel);
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

  private run(item: T): void {
    const id = item.id;
    const running = this.source
      .run(item, this.id)
      .catch((error: unknown) => {
        this.log.error({ err: error, id }, `${this.source.work}: a row failed unexpectedly`);
        return false;
      })
      .then((lookAgain) => {
        this.inFlight.delete(id);
        // A slot is free: worth a claim only if work may be waiting (else the next
        // notification or poll brings it), or when this row held a slot others wait for.
        if (this.maybeDue || lookAgain === true) this.wake();
      });
    this.inFlight.set(id, running);
  }

  private async extendLeases(): Promise<void> {
    const ids = [...this.inFlight.keys()];
    if (ids.length === 0) return;
    await this.source.extend(this.id, ids, this.options.leaseMs).catch((error: unknown) => {
      // During an outage the loop has said so once already.
      if (!isDatabaseUnreachable(error))
        this.log.warn({ err: error }, `could not extend the leases of ${this.source.work}`);
    });
  }
}
