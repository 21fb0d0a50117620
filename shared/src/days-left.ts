/** Day arithmetic of deadlines in UTC: zod-free, for the Requests page's first bundle. */

export const DAY_MS = 86_400_000;

/** Whole days until a deadline (negative once it has passed). */
export function daysLeft(dueAt: Date, now: Date): number {
  return Math.ceil((dueAt.getTime() - now.getTime()) / DAY_MS);
}

/**
 * The calendar day an instant falls on in California (as the UTC midnight of that date): CCPA's
 * business days are counted on it. It is never later than the day anywhere else in the
 * contiguous United States, so a count from it never ends later than one from there.
 */
const CALIFORNIA_DATE = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Los_Angeles',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});
const californiaDay = (instant: Date) => Date.parse(`${CALIFORNIA_DATE.format(instant)}T00:00:00Z`);
const isWeekday = (utcMidnight: number) => {
  const weekday = new Date(utcMidnight).getUTCDay();
  return weekday !== 0 && weekday !== 6;
};

/**
 * `days` business days (Monday to Friday on California's calendar) after the day `date` falls
 * on there, at the same time as `date` (whole days later). Public holidays are counted as
 * business days, so the date is never later than the law's.
 */
export function addBusinessDays(date: Date, days: number): Date {
  const start = californiaDay(date);
  let day = start;
  for (let left = days; left > 0;) {
    day += DAY_MS;
    if (isWeekday(day)) left--;
  }
  const due = new Date(date.getTime() + (day - start));
  // Across the spring change of clocks, the same time whole days later is an hour later there.
  return californiaDay(due) > day ? new Date(due.getTime() - 3_600_000) : due;
}

/**
 * Business days (Monday to Friday, California's calendar) left until the day of `until`: those
 * after today up to that day (0: it is today); once that day has passed, minus those since it,
 * and at least -1 (a weekend after a Friday's date is already late).
 */
export function businessDaysLeft(until: Date, now: Date): number {
  const [today, last] = [californiaDay(now), californiaDay(until)];
  let count = 0;
  for (let t = Math.min(today, last) + DAY_MS; t <= Math.max(today, last); t += DAY_MS) if (isWeekday(t)) count++;
  return last >= today ? count : -Math.max(1, count);
}
