/** Whether the dashboard shows times in the viewer's own time zone or in UTC (kept in this browser). */
export type TimeZoneChoice = 'local' | 'UTC';

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

export const timeZoneChoice = (): TimeZoneChoice => choice;

export function setTimeZoneChoice(next: TimeZoneChoice): void {
  choice = next;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, next);
  } catch {
    // private mode: the choice lasts for this page only
  }
  for (const listener of listeners) listener();
}

/** For useSyncExternalStore. */
export function subscribeTimeZone(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
