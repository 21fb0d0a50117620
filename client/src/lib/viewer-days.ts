import { calendarDay, dateIn, endOfDayIn, startOfDayIn } from '@shared/zoned-days';
import { timeZoneChoice, type TimeZoneChoice } from './time-zone';

/*
 * Days the viewer picks (when a request was received, when a confirmation was sent) are days of
 * the zone they see times in: their browser's own zone, or UTC when they chose UTC. The server
 * gets the instant the day starts (or ends) there, so a day means the same instant whatever the
 * organization's time zone, in which deadlines are counted from that instant.
 */

/** The IANA zone of the viewer's days: the browser's own, or UTC when that is their choice. */
export function viewerTimeZone(choice: TimeZoneChoice = timeZoneChoice()): string {
  return choice === 'UTC' ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Today's date ("YYYY-MM-DD") in the viewer's zone: the latest day a picker for something past offers. */
export function viewerToday(choice?: TimeZoneChoice, now = new Date(), timeZone = viewerTimeZone(choice)): string {
  return dateIn(now, timeZone);
}

/** The first instant (ISO, UTC) of a "YYYY-MM-DD" day in the viewer's zone. */
export function startOfViewerDay(date: string, choice?: TimeZoneChoice, timeZone = viewerTimeZone(choice)): string {
  return startOfDayIn(calendarDay(date), timeZone).toISOString();
}

/**
 * The last instant (ISO, UTC) of a "YYYY-MM-DD" day in the viewer's zone; for today, now (the
 * thing was done by now). A day still to come stays in the future, for the server to refuse.
 */
export function endOfViewerDay(
  date: string,
  choice?: TimeZoneChoice,
  now = Date.now(),
  timeZone = viewerTimeZone(choice),
): string {
  const day = calendarDay(date);
  const started = startOfDayIn(day, timeZone).getTime() <= now;
  const end = endOfDayIn(day, timeZone).getTime();
  return new Date(started ? Math.min(end, now) : end).toISOString();
}
