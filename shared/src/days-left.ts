/** Days left until deadlines: zod-free, for the Requests page's first bundle. */
import { DAY_MS, dayIn, endOfDayIn } from './zoned-days';

export { DAY_MS };

/** Whole days until a deadline (negative once it has passed; -1 the day after it). */
export function daysLeft(dueAt: Date, now: Date): number {
  // Deadlines end at the end of a day: the whole days after today until it, 0 on the day itself.
  const days = (dueAt.getTime() - now.getTime()) / DAY_MS;
  return days >= 0 ? Math.floor(days) : Math.ceil(days);
}

/** CCPA's business days are counted on California's calendar (the westernmost of the contiguous states). */
const CALIFORNIA = 'America/Los_Angeles';
const californiaDay = (instant: Date) => dayIn(instant, CALIFORNIA);
const isWeekday = (utcMidnight: number) => {
  const weekday = new Date(utcMidnight).getUTCDay();
  return weekday !== 0 && weekday !== 6;
};

/**
 * The end of the day, in California, that is `days` business days (Monday to Friday there) after
 * the day `date` falls on there, whatever the clocks did in between. Public holidays are counted
 * as business days, so the date is never later than the law's.
 */
export function addBusinessDays(date: Date, days: number): Date {
  let day = californiaDay(date);
  for (let left = days; left > 0;) {
    day += DAY_MS;
    if (isWeekday(day)) left--;
  }
  return endOfDayIn(day, CALIFORNIA);
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
