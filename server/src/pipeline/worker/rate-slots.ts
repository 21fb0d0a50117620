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

/** Waits for a call's slot under its integration's rate (a timer, not a loop). */
export function untilSlot(notBefore: Date | null): Promise<void> | null {
  const waitMs = notBefore ? notBefore.getTime() - Date.now() : 0;
  return waitMs > 0 ? new Promise((resolve) => setTimeout(resolve, waitMs)) : null;
}
