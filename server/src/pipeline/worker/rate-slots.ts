import type { Exchange, Outcome } from '../../integrations/types';

/**
 * When the destination asked to be left alone until: its answer was a 429 and the outcome waits
 * for a time it named (Retry-After or the vendor's reset header, read by the connector); null
 * otherwise. The integration's next slot moves there, so no worker hammers it meanwhile.
 */
export function rateLimitedUntil(trail: readonly Exchange[], outcome: Outcome, now: Date): Date | null {
  const refused = trail.some((exchange) => exchange.kind === 'http' && exchange.response?.status === 429);
  if (!refused) return null;
  if (outcome.kind === 'deferred') return outcome.until;
  if (outcome.kind === 'retry' && outcome.retryAfterMs !== undefined && outcome.retryAfterMs > 0)
    return new Date(now.getTime() + outcome.retryAfterMs);
  return null;
}

/** A timer until `at` (epoch ms); null when that time has come. */
function until(at: number): Promise<void> | null {
  const waitMs = at - Date.now();
  return waitMs > 0 ? new Promise((resolve) => setTimeout(resolve, waitMs)) : null;
}

/** Waits for a call's slot under its integration's rate (a timer, not a loop). */
export function untilSlot(notBefore: Date | null): Promise<void> | null {
  return notBefore ? until(notBefore.getTime()) : null;
}

/**
 * Spaces a step's calls to a rate-limited destination: each leaves at least `intervalMs` (one
 * call's share of the rate) after the one before. The claim gave the step a slot of
 * `callsPerStep` calls; without this its calls (a search and the delete, one per email) left
 * back to back at the slot's start, and a vendor counting by the second saw them all in one.
 * The first call goes at once (the worker waited for the slot). Undefined without a rate.
 */
export function callPacer(intervalMs: number | null): (() => Promise<void>) | undefined {
  if (intervalMs === null || !(intervalMs > 0)) return undefined;
  let next = 0;
  return () => {
    // Taken before waiting, so calls a driver makes at once queue one behind the other.
    const at = Math.max(next, Date.now());
    next = at + intervalMs;
    return until(at) ?? Promise.resolve();
  };
}
