import pg from 'pg';
import { poolOf, type Db } from '../db/client';

/** The channels runners LISTEN on: one per queue. */
export const CHANNELS = {
  /** Integration requests due for a step (the deletion workers). */
  deletions: 'integration_work',
  /** Callback deliveries due (the callback dispatchers). */
  callbacks: 'callback_work',
} as const;

export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

/** At most one wake-up per pool and channel in this window; the work itself is already durable in its rows. */
const WAKE_INTERVAL_MS = 20;

interface Waker {
  lastSent: number;
  timer: NodeJS.Timeout | null;
}

const wakers = new WeakMap<pg.Pool, Map<Channel, Waker>>();

/**
 * Tells the idle runners of a queue (in every process) that work is due, after the
 * transaction that queued it has committed. A burst sends one notification per few
 * milliseconds instead of one per row: every notification wakes every runner, and
 * PostgreSQL serialises the commits of transactions that notify, so a NOTIFY inside each
 * create would make concurrent creates wait for each other. The first of a burst goes out at
 * once. A lost notification (the process stops first) costs one poll interval: the runners'
 * poll finds the rows.
 */
export function wake(db: Db | pg.Pool, channel: Channel): void {
  const pool = db instanceof pg.Pool ? db : poolOf(db);
  if (!pool) {
    void (db as Db).$executeRawUnsafe(`SELECT pg_notify('${channel}', '')`).catch(() => {});
    return;
  }
  let byChannel = wakers.get(pool);
  if (!byChannel) {
    byChannel = new Map();
    wakers.set(pool, byChannel);
  }
  let waker = byChannel.get(channel);
  if (!waker) {
    waker = { lastSent: 0, timer: null };
    byChannel.set(channel, waker);
  }
  if (waker.timer) return;
  const current = waker;
  const send = () => {
    current.lastSent = Date.now();
    // A notification carries no data to keep, so its commit need not wait for the disk.
    pool.query(`BEGIN; SET LOCAL synchronous_commit = off; NOTIFY ${channel}; COMMIT`).catch(() => {});
  };
  const wait = current.lastSent + WAKE_INTERVAL_MS - Date.now();
  if (wait <= 0) send();
  else
    current.timer = setTimeout(() => {
      current.timer = null;
      send();
    }, wait);
}

/**
 * Wakes the deletion workers: every way a step becomes due at once (create, retry, late
 * fan-out, "check now") calls this after its commit.
 */
export const wakeWorkers = (db: Db | pg.Pool): void => wake(db, CHANNELS.deletions);

/** Wakes the callback dispatchers: a status event, a test event or a resend goes out at once. */
export const wakeCallbackDispatchers = (db: Db | pg.Pool): void => wake(db, CHANNELS.callbacks);
