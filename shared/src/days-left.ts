/** Whole days until a deadline (negative once it has passed), in UTC: zod-free, for the Requests page's first bundle. */
export const DAY_MS = 86_400_000;

export function daysLeft(dueAt: Date, now: Date): number {
  return Math.ceil((dueAt.getTime() - now.getTime()) / DAY_MS);
}
