import { timeZoneChoice, type TimeZoneChoice } from './time-zone';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The viewer's own zone when it is not this runtime's: set while the server renders a page for a browser. */
let viewerZone: string | undefined;

/** Runs `render` with "local" times meaning `zone` (an IANA name the browser reported), as the server renders a page. */
export function inViewerTimeZone<T>(zone: string | undefined, render: () => T): T {
  const previous = viewerZone;
  viewerZone = zone;
  try {
    return render();
  } finally {
    viewerZone = previous;
  }
}

/** Formatters per time zone choice, built once each. */
function formatter(kind: 'dateTime' | 'date' | 'time', zone: TimeZoneChoice = timeZoneChoice()): Intl.DateTimeFormat {
  const key = `${kind}:${zone}:${viewerZone ?? ''}`;
  let found = formatters.get(key);
  if (!found) {
    const timeZone = zone === 'UTC' ? 'UTC' : viewerZone;
    // 'long' time: seconds and the time zone ("3:12:45 AM UTC"), so an audit time is never ambiguous.
    const options: Intl.DateTimeFormatOptions =
      kind === 'dateTime'
        ? { dateStyle: 'medium', timeStyle: 'long', timeZone }
        : kind === 'date'
          ? { dateStyle: 'medium', timeZone }
          : { timeStyle: 'long', timeZone };
    found = new Intl.DateTimeFormat(undefined, options);
    formatters.set(key, found);
  }
  return found;
}

/** Date and time with seconds and time zone, in the chosen zone (local or UTC, see time-zone.ts). */
export function formatDateTime(iso: string | number | Date | null | undefined, zone?: TimeZoneChoice): string {
  return iso === null || iso === undefined ? '—' : formatter('dateTime', zone).format(new Date(iso));
}

export function formatDate(iso: string | null | undefined, zone?: TimeZoneChoice): string {
  return iso ? formatter('date', zone).format(new Date(iso)) : '—';
}

/** Time of day with seconds and time zone ("3:12:45 AM UTC"). */
export function formatTime(iso: string | number | Date, zone?: TimeZoneChoice): string {
  return formatter('time', zone).format(new Date(iso));
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", or a date (in `zone`) beyond a month; future times read "in …". */
export function formatRelative(iso: string | null | undefined, now = Date.now(), zone?: TimeZoneChoice): string {
  if (!iso) return 'never';
  const diff = now - new Date(iso).getTime();
  const future = diff < 0;
  const s = Math.abs(diff) / 1000;
  let text: string;
  if (s < 45) return future ? 'in a few seconds' : 'just now';
  else if (s < 3600) text = `${Math.round(s / 60)} min`;
  else if (s < 86_400) text = `${Math.round(s / 3600)} h`;
  else if (s < 30 * 86_400) {
    const days = Math.round(s / 86_400);
    text = `${days} day${days === 1 ? '' : 's'}`;
  } else return formatDate(iso, zone);
  return future ? `in ${text}` : `${text} ago`;
}

/** A duration in seconds as "850 ms", "42 s", "3.5 min", "5.2 h", "2.1 days". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${trim(seconds / 60)} min`;
  if (seconds < 86_400) return `${trim(seconds / 3600)} h`;
  return `${trim(seconds / 86_400)} days`;
}

const trim = (n: number) => (Math.round(n * 10) / 10).toString();

export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined) return '—';
  return `${Math.round(fraction * 1000) / 10}%`;
}
