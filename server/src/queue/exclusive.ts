import type pg from 'pg';
import { checkOut } from '../db/connections';
import type { Logger } from '../lib/logger';

/**
 * Runs a scheduled job on one process at a time: under a session-level advisory lock on one
 * dedicated connection, so that a process which finds the lock held skips this turn (the
 * holder is doing the work). Failures are logged; the next turn tries again. The scheduled
 * jobs' counterpart of a queue row's lease.
 */
export async function runExclusively(
  pool: pg.Pool,
  log: Logger,
  lock: number,
  what: string,
  run: () => Promise<void>,
): Promise<void> {
  try {
    const held = await checkOut(pool);
    try {
      const { rows } = await held.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        lock,
      ]);
      if (!rows[0]?.locked) return;
      try {
        await run();
      } finally {
        await held.client.query('SELECT pg_advisory_unlock($1)', [lock]);
      }
    } finally {
      held.release();
    }
  } catch (error) {
    log.error({ err: error }, `${what} failed`);
  }
}

/** Runs `job` every `ms` (unref'd: a timer never keeps the process alive); returns the timer to clear at stop. */
export function every(ms: number, job: () => Promise<void>): NodeJS.Timeout {
  const timer = setInterval(() => void job(), ms);
  timer.unref();
  return timer;
}
