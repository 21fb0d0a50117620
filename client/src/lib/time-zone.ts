/** Whether the dashboard shows times in the viewer's own time zone or in UTC (kept in this browser). */
export type TimeZoneChoice = 'local' | 'UTC';

/**
 * The cookie that tells the server which zone to render times in: `VIEWER_ZONE_COOKIE` of
 * shared/src/early-requests.ts, written out here so this module (in the first bundle) pulls in
 * no shared chunk; time-zone.test.ts checks the two agree.
 */
export const VIEWER_ZONE_COOKIE = 'dds_tz';
/** `TIMES_CHOICE_COOKIE` of shared/src/early-requests.ts ("UTC" while that is the choice). */
export const TIMES_CHOICE_COOKIE = 'dds_times';

const STORAGE_KEY = 'dds.timeZone';
const listeners = new Set<() => void>();

function stored(): TimeZoneChoice {
  try {
    return globalThis.localStorage?.getItem(STORAGE_KEY) === 'UTC' ? 'UTC' : 'local';
  } catch {
    return 'local';
  }
}

let choice: TimeZoneChoice = stored();

/**
 * Tells the server the zone this browser shows times in ("UTC" or its own zone) and whether UTC
 * is the viewer's choice (a browser whose own zone is UTC has not chosen it), for the pages it renders.
 */
export function rememberViewerZone(): void {
  if (typeof document === 'undefined') return;
  const zone = choice === 'UTC' ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone;
  const cookie = (name: string, value: string, maxAge: number) =>
    (document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAge}; samesite=lax`);
  if (zone) cookie(VIEWER_ZONE_COOKIE, zone, 31_536_000);
  cookie(TIMES_CHOICE_COOKIE, choice, choice === 'UTC' ? 31_536_000 : 0);
}

/** Runs `render` with `chosen` as the viewer's choice, as the server renders a page for a browser (no storage there). */
export function withTimeZoneChoice<T>(chosen: TimeZoneChoice, render: () => T): T {
  const previous = choice;
  choice = chosen;
  try {
    return render();
  } finally {
    choice = previous;
  }
}

export const timeZoneChoice = (): TimeZoneChoice => choice;

export function setTimeZoneChoice(next: TimeZoneChoice): void {
  choice = next;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, next);
  } catch {
    // private mode: the choice lasts for this page only
  }
  rememberViewerZone();
  for (const listener of listeners) listener();
}

/** For useSyncExternalStore. */
export function subscribeTimeZone(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
