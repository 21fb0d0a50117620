import pg from 'pg';
import { poolOf, type Db } from '../db/client';

/** The channel callback dispatchers LISTEN on. */
export const CALLBACK_CHANNEL = 'callback_work';

/** At most one wake-up per pool in this window; the deliveries themselves are durable rows. */
const WAKE_INTERVAL_MS = 20;

const wakers = new WeakMap<pg.Pool, { lastSent: number; timer: NodeJS.Timeout | null }>();

/**
 * Tells idle callback dispatchers (in every worker process) that deliveries are due, after
 * the transaction that recorded them has committed: a status event, a "send test event" or
 * a resend goes out at once instead of at the next poll (CALLBACK_POLL_MS). Coalesced like
 * the deletion workers' wake-up, and as harmless when lost: the poll finds the rows.
 */
export function wakeCallbackDispatchers(db: Db | pg.Pool): void {
  const pool = db instanceof pg.Pool ? db : poolOf(db);
  if (!pool) {
    void (db as Db).$executeRawUnsafe(`SELECT pg_notify('${CALLBACK_CHANNEL}', '')`).catch(() => {});
    return;
  }
  let waker = wakers.get(pool);
  if (!waker) {
    waker = { lastSent: 0, timer: null };
    wakers.set(pool, waker);
  }
  if (waker.timer) return;
  const send = () => {
    waker.lastSent = Date.now();
    // A notification carries no data to keep, so its commit need not wait for the disk.
    pool.query(`BEGIN; SET LOCAL synchronous_commit = off; NOTIFY ${CALLBACK_CHANNEL}; COMMIT`).catch(() => {});
  };
  const wait = waker.lastSent + WAKE_INTERVAL_MS - Date.now();
  if (wait <= 0) send();
  else
    waker.timer = setTimeout(() => {
      waker.timer = null;
      send();
    }, wait);
}
