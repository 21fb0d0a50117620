import type { Logger } from './logger';

/** One thing a stopping process closes (connections to a data store, its own database, the embedded server). */
export interface ClosingStep {
  /** What the log line names when it takes too long or fails ("the service database"). */
  what: string;
  close: () => Promise<unknown>;
}

/**
 * Closes one thing after another, each for at most `withinMs`: a close that hangs (a
 * connection to a host that stopped answering, a pool waiting for a client that never comes
 * back) is logged and left behind, and the next still runs, so the embedded PostgreSQL at the
 * end is always stopped and the process exits. Resolves with what did not close in time.
 */
export async function closeInTurn(steps: ClosingStep[], withinMs: number, log: Logger): Promise<string[]> {
  const late: string[] = [];
  for (const step of steps) {
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      step.close().then(
        () => 'closed' as const,
        (err: unknown) => {
          log.error({ err }, `error closing ${step.what}`);
          return 'failed' as const;
        },
      ),
      new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), withinMs))),
    ]);
    clearTimeout(timer);
    if (outcome === 'late') {
      log.warn({ waitedMs: withinMs }, `${step.what} did not close in time; going on without it`);
      late.push(step.what);
    }
  }
  return late;
}
