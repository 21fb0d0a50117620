/** Whether the dashboard shows times in the viewer's own time zone or in UTC (kept in this browser). */
export type TimeZoneChoice = 'local' | 'UTC';

/**
 * The cookie that tells the server which zone to render times in: `VIEWER_ZONE_COOKIE` of
 * shared/src/early-requests.ts, written out here so this module (in the first bundle) pulls in
 * no shared chunk; time-zone.test.ts checks the two agree.
 */
export const VIEWER_ZONE_COOKIE = 'dds_tz';

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

/** Tells the server the zone this browser shows times in ("UTC" or its own zone), for the pages it renders. */
export function rememberViewerZone(): void {
  if (typeof document === 'undefined') return;
  const zone = choice === 'UTC' ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone)
    document.cookie = `${VIEWER_ZONE_COOKIE}=${encodeURIComponent(zone)}; path=/; max-age=31536000; samesite=lax`;
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
