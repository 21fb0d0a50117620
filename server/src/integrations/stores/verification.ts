import type { ReverifyResult } from '../types';

/** "rule: n" for every rule that still finds something, or '' when none does. */
export const stillMatching = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([rule, n]) => `${rule}: ${n}`)
    .join(', ');

/**
 * A re-verification's result from the per-rule counts of the store's proof of deletion (the
 * same read the deletion ended with); `unit` names what the store holds ("rows", "objects", …).
 */
export function reverification(counts: Record<string, number>, unit: string): ReverifyResult {
  const remaining = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    remaining,
    counts,
    message:
      remaining === 0
        ? `Re-verified: no matching ${unit}`
        : `${unit[0]!.toUpperCase()}${unit.slice(1)} matching the subject came back: ${stillMatching(counts)}`,
  };
}
