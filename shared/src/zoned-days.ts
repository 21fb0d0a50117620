/** Calendar days in a named (IANA) time zone, with Intl only: zod-free, for the first bundle too. */

export const DAY_MS = 86_400_000;

/** A calendar date as the UTC midnight of that date: day arithmetic without any zone. */
export type CalendarDay = number;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** Whether a name is an IANA time zone this runtime knows ("Europe/Berlin", "UTC"); not an offset or an abbreviation. */
export function isIanaTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A known zone's name as the runtime spells it ("europe/berlin" is "Europe/Berlin"). */
export const canonicalTimeZone = (name: string): string =>
  new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;

/** Zones whose wall clock is UTC's at every instant: no formatting needed to read it. */
const UTC_ZONES = new Set(['UTC', 'Etc/UTC']);

/** The wall-clock time of an instant in a zone, read as if it were UTC. */
function wallClock(instant: number, timeZone: string): number {
  if (UTC_ZONES.has(timeZone)) return instant;
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, Number(part.value)]),
  ) as Record<string, number>;
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** The calendar day an instant falls on in a zone. */
export function dayIn(instant: Date, timeZone: string): CalendarDay {
  const wall = wallClock(instant.getTime(), timeZone);
  return wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
}

// Every request created on one day asks for the same few days' starts: each is worked out once.
const dayStarts = new Map<string, number>();
const DAY_STARTS_KEPT = 1_000;

/** The first instant of a calendar day in a zone: its midnight, or the first minute after a skipped one. */
export function startOfDayIn(day: CalendarDay, timeZone: string): Date {
  const key = `${timeZone} ${day}`;
  let start = dayStarts.get(key);
  if (start === undefined) {
    if (dayStarts.size >= DAY_STARTS_KEPT) dayStarts.clear();
    start = firstInstantOf(day, timeZone);
    dayStarts.set(key, start);
  }
  return new Date(start);
}

function firstInstantOf(day: CalendarDay, timeZone: string): number {
  const offset = (instant: number) => wallClock(instant, timeZone) - instant;
  // The offset at midnight read as UTC, then at the instant that gives: right unless the clocks change within.
  let instant = day - offset(day - offset(day));
  while (dayIn(new Date(instant), timeZone) < day) instant += 60_000;
  return instant;
}

/** The last instant (millisecond) of a calendar day in a zone. */
export function endOfDayIn(day: CalendarDay, timeZone: string): Date {
  return new Date(startOfDayIn(day + DAY_MS, timeZone).getTime() - 1);
}

/** A "YYYY-MM-DD" date as a calendar day. */
export const calendarDay = (date: string): CalendarDay => Date.parse(`${date}T00:00:00Z`);

/** The same day-of-month `months` later, clamped to the last day of a shorter month (31 Jan + 1 = 28/29 Feb). */
export function addMonthsToDay(day: CalendarDay, months: number): CalendarDay {
  const date = new Date(day);
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), month + 1, 0)).getUTCDate();
  return Date.UTC(date.getUTCFullYear(), month, Math.min(date.getUTCDate(), lastDay));
}

/** The "YYYY-MM-DD" date an instant falls on in a zone. */
export const dateIn = (instant: Date, timeZone: string): string =>
  new Date(dayIn(instant, timeZone)).toISOString().slice(0, 10);
