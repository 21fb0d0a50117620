import type pg from 'pg';
import type { Db } from '../db/client';
import { ADVISORY_LOCKS } from '../db/advisory-locks';
import { every, runExclusively } from '../queue/exclusive';
import type { Logger } from '../lib/logger';
import { sealAuditChain } from '../services/audit/audit-chain';
import { dropAuditMonths, ensureAuditMonths } from '../services/audit/audit-months';
import { applyRetention } from '../pipeline/commands/apply-retention';
import { runNotifications, type NotifyDeps } from '../services/notifications/notify';
import { pruneIdempotencyKeys } from '../services/idempotency/idempotency-keys';
import { recordDeadlineEvents } from '../pipeline/store/deadline-events';
import { recountLegacyDeadlines } from '../pipeline/commands/recount-deadlines';
import { runReverification } from './reverify';
import { runManualTaskReminders } from '../services/manual-tasks/reminders';
import { unmarkUnlimitedRows } from '../pipeline/store/claim';
import { pgQuery } from '../pipeline/store/sql';

const RETENTION_LOCK = ADVISORY_LOCKS.retention;
const NOTIFY_LOCK = ADVISORY_LOCKS.notifications;
const REVERIFY_LOCK = ADVISORY_LOCKS.reverification;
/** Deadline callback events (overdue, at risk) are looked for this often. */
const DEADLINE_EVENTS_INTERVAL_MS = 60_000;
/** Running rows marked `limited` of integrations without limits are looked for this often. */
const LIMITED_ROWS_INTERVAL_MS = 60_000;
/** Re-verification looks for due integration requests this often (and once at start). */
const REVERIFY_INTERVAL_MS = 3_600_000;
/** Manual task reminders and escalations are looked for this often. */
const MANUAL_TASKS_INTERVAL_MS = 15 * 60_000;

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
    /** AUDIT_LOG_RETENTION_MONTHS: audit log months older than this many before the current one are dropped. */
    private readonly auditLogRetentionMonths?: number,
  ) {}

  start(): void {
    void this.recountDeadlines();
    void this.runRetention();
    this.scheduleMidnight();
    this.timers.push(every(this.sealIntervalMs, () => this.seal()));
    this.timers.push(every(DEADLINE_EVENTS_INTERVAL_MS, () => this.deadlineEvents()));
    this.timers.push(every(LIMITED_ROWS_INTERVAL_MS, () => this.limitedRows()));
    if (this.notifyDeps) {
      this.timers.push(every(this.notifyDeps.config.NOTIFY_INTERVAL_MS, () => this.notify()));
      void this.reverify();
      this.timers.push(every(REVERIFY_INTERVAL_MS, () => this.reverify()));
      this.timers.push(every(MANUAL_TASKS_INTERVAL_MS, () => this.manualTaskReminders()));
    }
  }

  /** Re-verification of store deletions N days after SUCCESS (organizations with `reverifyAfterDays`); one worker at a time. */
  async reverify(): Promise<void> {
    const deps = this.notifyDeps;
    if (!deps || this.stopped) return;
    await this.exclusively(REVERIFY_LOCK, 're-verification run', async () => {
      const result = await runReverification(deps);
      if (result.verified || result.reappeared || result.failed) this.log.info(result, 're-verification run');
    });
  }

  /** Notifications (integration failed, completed, reappeared) and the daily deadline digest; one worker at a time. */
  async notify(): Promise<void> {
    const deps = this.notifyDeps;
    if (!deps || this.stopped) return;
    await this.exclusively(NOTIFY_LOCK, 'notification run', async () => {
      const result = await runNotifications(deps);
      if (result.sent) this.log.info(result, 'notifications sent');
    });
  }

  /** Reminders to manual tasks' owners, and escalations of overdue tasks to the admins; one worker at a time. */
  async manualTaskReminders(): Promise<void> {
    const deps = this.notifyDeps;
    if (!deps || this.stopped) return;
    await this.exclusively(ADVISORY_LOCKS.manualTaskReminders, 'manual task reminders', async () => {
      const result = await runManualTaskReminders(deps);
      if (result.reminded || result.escalated) this.log.info(result, 'manual task reminders sent');
    });
  }

  /** The deadline callback events (overdue, at risk) that fell due; one worker at a time. */
  async deadlineEvents(): Promise<void> {
    if (this.stopped) return;
    await this.exclusively(ADVISORY_LOCKS.deadlineEvents, 'deadline events run', async () => {
      const recorded = await recordDeadlineEvents(this.db);
      if (recorded) this.log.info({ recorded }, 'deadline callback events recorded');
    });
  }

  /** Running rows still marked `limited` though their integration lost its limits, unmarked; one worker at a time. */
  async limitedRows(): Promise<void> {
    if (this.stopped) return;
    await this.exclusively(ADVISORY_LOCKS.limitedRows, 'limited rows sweep', async () => {
      const unmarked = await unmarkUnlimitedRows(pgQuery(this.pool));
      if (unmarked) this.log.info({ unmarked }, 'integration requests of integrations without limits unmarked');
    });
  }

  /** Once at start: open requests whose deadlines an older rule counted are counted again (audited). */
  async recountDeadlines(): Promise<void> {
    if (this.stopped) return;
    await this.exclusively(ADVISORY_LOCKS.deadlineRecount, 'deadline recount', async () => {
      const result = await recountLegacyDeadlines(this.db);
      if (result.recounted) this.log.info(result, 'deadlines counted again on calendar days');
    });
  }

  private exclusively(lock: number, what: string, run: () => Promise<void>): Promise<void> {
    return runExclusively(this.pool, this.log, lock, what, run);
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
    await this.exclusively(RETENTION_LOCK, 'retention run', async () => {
      const result = await applyRetention(this.db);
      if (result.hashed || result.deleted) this.log.info(result, 'retention policy applied');
      await pruneIdempotencyKeys(this.db);
    });
    // On its own: a failed retention run still leaves the coming months created.
    await this.exclusively(RETENTION_LOCK, 'audit log months', () => this.auditMonths());
  }

  /** The audit log's coming months created ahead; with a retention in months, the months past it dropped. */
  private async auditMonths(): Promise<void> {
    const months = await ensureAuditMonths(this.pool);
    if (months.created.length) this.log.info(months, 'audit log months created');
    if (months.blocked.length)
      this.log.warn(months, 'audit log months not created: their entries are in the default partition');
    if (this.auditLogRetentionMonths === undefined) return;
    const outcome = await dropAuditMonths(this.pool, this.auditLogRetentionMonths);
    if (outcome.dropped.length) this.log.info({ dropped: outcome.dropped }, 'audit log months dropped');
    if ('reason' in outcome)
      this.log.warn({ month: outcome.stoppedAt, reason: outcome.reason }, 'audit log month kept for now');
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
