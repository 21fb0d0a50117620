import type { Exchange, Outcome } from '../types';

/**
 * Runs one call to a data store and records it in the trail by its shape only (command and
 * templates, never the identifier or a secret), with the number of items it returned or changed.
 */
export async function recordCall<T>(
  trail: Exchange[],
  shown: string,
  run: () => Promise<T>,
  count: (result: T) => number,
): Promise<T> {
  const started = Date.now();
  const step: Extract<Exchange, { kind: 'sql' }> = { kind: 'sql', statement: shown, durationMs: 0 };
  trail.push(step);
  try {
    const result = await run();
    step.rowCount = count(result);
    return result;
  } catch (error) {
    step.error = (error as Error).message;
    throw error;
  } finally {
    step.durationMs = Date.now() - started;
  }
}

/** Whether a maintenance window (daily, UTC hours) is open now; the next opening otherwise. */
export function nextWindowOpening(
  window: { startHourUtc: number; endHourUtc: number } | undefined,
  now: Date,
): Date | null {
  if (!window) return null;
  const hour = now.getUTCHours();
  const { startHourUtc: start, endHourUtc: end } = window;
  const open = start < end ? hour >= start && hour < end : hour >= start || hour < end;
  if (open) return null;
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), start));
  if (next <= now) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

/**
 * A store's deletion, held to its maintenance window: outside it the step is deferred to the
 * window's next opening (no attempt used), inside it `run` deletes.
 */
export function inMaintenanceWindow(
  ctx: { config: { maintenanceWindow?: { startHourUtc: number; endHourUtc: number } }; now: Date },
  run: () => Promise<Outcome>,
): Promise<Outcome> {
  const opens = nextWindowOpening(ctx.config.maintenanceWindow, ctx.now);
  if (!opens) return run();
  return Promise.resolve({
    kind: 'deferred',
    until: opens,
    message: `Scheduled for the maintenance window at ${opens.toISOString()}`,
    scheduled: true,
  });
}

/** The statements (or commands) a dry run sent, as its result shows them: shapes only, never the identifier. */
export const statementsOf = (trail: Exchange[]): string[] =>
  trail.flatMap((t) => (t.kind === 'sql' ? [t.statement] : []));
