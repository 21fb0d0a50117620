/** Day arithmetic of deadlines in UTC: zod-free, for the Requests page's first bundle. */

export const DAY_MS = 86_400_000;

/** Whole days until a deadline (negative once it has passed). */
export function daysLeft(dueAt: Date, now: Date): number {
  return Math.ceil((dueAt.getTime() - now.getTime()) / DAY_MS);
}

/**
 * `days` business days after `date`, at the same time of day: Monday to Friday in UTC. Public
 * holidays are counted as business days, so the date is never later than the law's.
 */
export function addBusinessDays(date: Date, days: number): Date {
  let result = date;
  for (let left = days; left > 0;) {
    result = new Date(result.getTime() + DAY_MS);
    const weekday = result.getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return result;
}

/**
 * Business days (Monday to Friday, UTC) left until the day of `until`: those after today up to
 * that day (0: it is today), or minus those since it when it has passed.
 */
export function businessDaysLeft(until: Date, now: Date): number {
  const day = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const weekdaysIn = (after: number, upTo: number) => {
    let count = 0;
    for (let t = after + DAY_MS; t <= upTo; t += DAY_MS) {
      const weekday = new Date(t).getUTCDay();
      if (weekday !== 0 && weekday !== 6) count++;
    }
    return count;
  };
  const [today, last] = [day(now), day(until)];
  // (`0 -` so that no business day late yet is 0, not -0.)
  return last >= today ? weekdaysIn(today, last) : 0 - weekdaysIn(last, today);
}
