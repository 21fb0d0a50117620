import type { Outcome, ReverifyResult } from '../types';

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

/**
 * A store's outcome from its proof after the commit: what each rule changed and what each still
 * finds. Anything still found is a retry naming it ("Verification found rows still matching:
 * users.email: 1"); none, a success saying how much changed, with both counts as evidence.
 */
export function verifiedOutcome(
  changed: Record<string, number>,
  remaining: Record<string, number>,
  words: { stillThere: string; done: (total: number) => string },
): Outcome {
  const left = stillMatching(remaining);
  if (left) return { kind: 'retry', reason: `Verification found ${words.stillThere}: ${left}` };
  const total = Object.values(changed).reduce((a, b) => a + b, 0);
  return { kind: 'success', message: words.done(total), evidence: { changed, remaining } };
}
