import type pg from 'pg';
import type { Db } from '../db/client';
import { ADVISORY_LOCKS } from '../db/advisory-locks';
import { checkOut } from '../db/connections';
import type { Logger } from '../lib/logger';
import { sealAuditChain } from '../services/audit/audit-chain';
import { applyRetention } from '../pipeline/commands/apply-retention';
import { runNotifications, type NotifyDeps } from '../services/notifications/notify';
import { pruneIdempotencyKeys } from '../services/idempotency/idempotency-keys';
import { runReverification } from './reverify';

const RETENTION_LOCK = ADVISORY_LOCKS.retention;
const NOTIFY_LOCK = ADVISORY_LOCKS.notifications;
const REVERIFY_LOCK = ADVISORY_LOCKS.reverification;
/** Re-verification looks for due integration requests this often (and once at start). */
const REVERIFY_INTERVAL_MS = 3_600_000;

/** Milliseconds until the next midnight UTC. */
export function msUntilMidnightUtc(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return next - now.getTime();
}

/**
 * Periodic upkeep run by worker processes: the retention policy daily at midnight UTC (and
 * once at start, to catch up on a missed midnight) with expired Idempotency-Key answers, and sealing new audit entries into the
 * hash chain. Several workers may run it: each job takes a PostgreSQL advisory lock.
 */
export class Scheduler {
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  /** A seal still running when the next one falls due (a large backlog, a slow database): the next one is skipped. */
  private sealing = false;

  constructor(
    private readonly db: Db,
    private readonly pool: pg.Pool,
    private readonly log: Logger,
    /** AUDIT_SEAL_INTERVAL_MS: how often new audit entries are sealed into the hash chain. */
    private readonly sealIntervalMs = 30_000,
    /** What the notifier needs (email, Slack, secrets); without it no notifications are sent. */
    private readonly notifyDeps?: NotifyDeps,
  ) {}

  start(): void {
    void this.runRetention();
    this.scheduleMidnight();
    const seal = setInterval(() => void this.seal(), this.sealIntervalMs);
    seal.unref();
    this.timers.push(seal);
    if (this.notifyDeps) {
      const notify = setInterval(() => void this.notify(), this.notifyDeps.config.NOTIFY_INTERVAL_MS);
      notify.unref();
      this.timers.push(notify);
      void this.reverify();
      const reverify = setInterval(() => void this.reverify(), REVERIFY_INTERVAL_MS);
      reverify.unref();
      this.timers.push(reverify);
    }
  }

  /** Re-verification of store deletions N days after SUCCESS (organizations with `reverifyAfterDays`); one worker at a time. */
  async reverify(): Promise<void> {
    if (!this.notifyDeps || this.stopped) return;
    try {
      const held = await checkOut(this.pool);
      try {
        const { rows } = await held.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
          REVERIFY_LOCK,
        ]);
        if (!rows[0]?.locked) return;
        try {
          const result = await runReverification(this.notifyDeps);
          if (result.verified || result.reappeared || result.failed) this.log.info(result, 're-verification run');
        } finally {
          await held.client.query('SELECT pg_advisory_unlock($1)', [REVERIFY_LOCK]);
        }
      } finally {
        held.release();
      }
    } catch (error) {
      this.log.error({ err: error }, 're-verification run failed');
    }
  }

  /** Notifications (integration failed, completed, reappeared) and the daily deadline digest; one worker at a time. */
  async notify(): Promise<void> {
    if (!this.notifyDeps || this.stopped) return;
    try {
      const client = await this.pool.connect();
      try {
        const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
          NOTIFY_LOCK,
        ]);
        if (!rows[0]?.locked) return;
        try {
          const result = await runNotifications(this.notifyDeps);
          if (result.sent) this.log.info(result, 'notifications sent');
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [NOTIFY_LOCK]);
        }
      } finally {
        client.release();
      }
    } catch (error) {
      this.log.error({ err: error }, 'notification run failed');
    }
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
  }

  private scheduleMidnight(): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      void this.runRetention().finally(() => this.scheduleMidnight());
    }, msUntilMidnightUtc() + 1_000);
    timer.unref();
    this.timers.push(timer);
  }

  async runRetention(): Promise<void> {
    try {
      // A session-level lock on one dedicated connection: one worker runs it at a time.
      const held = await checkOut(this.pool);
      const client = held.client;
      try {
        const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
          RETENTION_LOCK,
        ]);
        if (!rows[0]?.locked) return;
        try {
          const result = await applyRetention(this.db);
          if (result.hashed || result.deleted) this.log.info(result, 'retention policy applied');
          await pruneIdempotencyKeys(this.db);
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]);
        }
      } finally {
        held.release();
      }
    } catch (error) {
      this.log.error({ err: error }, 'retention run failed');
    }
  }

  private async seal(): Promise<void> {
    if (this.sealing) return;
    this.sealing = true;
    try {
      await sealAuditChain(this.db);
    } catch (error) {
      this.log.error({ err: error }, 'sealing the audit chain failed');
    } finally {
      this.sealing = false;
    }
  }
}
