import type pg from 'pg';
import { poolOf, type Db } from '../../db/client';

/** The channel idle workers LISTEN on. */
export const WORK_CHANNEL = 'integration_work';

/** At most one wake-up per pool in this window; the work itself is already durable in its rows. */
const WAKE_INTERVAL_MS = 20;

const wakers = new WeakMap<pg.Pool, Waker>();

/**
 * Tells idle workers that new work is due, after the transaction that queued it has
 * committed. A burst of requests sends one notification per few milliseconds instead of
 * one per request: every notification wakes every worker, and PostgreSQL serialises the
 * commits of transactions that notify, so a NOTIFY in each create would make concurrent
 * creates wait for each other. The first request of a burst wakes the workers at once. If
 * the notification is lost (the process stops first), the workers' poll finds the work.
 * Every way work becomes due at once (create, retry, late fan-out, "check now") calls this
 * after its commit: it is the one way workers are woken.
 */
export function wakeWorkers(db: Db): void {
  const pool = poolOf(db);
  if (!pool) {
    void db.$executeRawUnsafe(`SELECT pg_notify('${WORK_CHANNEL}', '')`).catch(() => {});
    return;
  }
  let waker = wakers.get(pool);
  if (!waker) {
    waker = new Waker(pool);
    wakers.set(pool, waker);
  }
  waker.wake();
}

class Waker {
  private lastSent = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly pool: pg.Pool) {}

  wake(): void {
    if (this.timer) return;
    const wait = this.lastSent + WAKE_INTERVAL_MS - Date.now();
    if (wait <= 0) this.send();
    else
      this.timer = setTimeout(() => {
        this.timer = null;
        this.send();
      }, wait);
  }

  private send(): void {
    this.lastSent = Date.now();
    // A notification carries no data to keep, so its commit need not wait for the disk.
    this.pool.query(`BEGIN; SET LOCAL synchronous_commit = off; NOTIFY ${WORK_CHANNEL}; COMMIT`).catch(() => {});
  }
}
