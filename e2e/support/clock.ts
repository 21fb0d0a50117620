const dayIn = (zone: string, at: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

const MARGIN_MS = 5 * 60_000;
const POLL_MS = 30_000;
/** The longest `clearOfDayChange` waits: a hook that calls it needs this much on top of its own time. */
export const DAY_CHANGE_WAIT_MS = MARGIN_MS + POLL_MS;

/**
 * Waits (if need be) until no new day starts in any of these zones within five minutes: a test that
 * compares what "today" is in two zones holds only while neither calendar turns under it. At most
 * `DAY_CHANGE_WAIT_MS`, a few times a day.
 */
export async function clearOfDayChange(zones: string[]): Promise<void> {
  for (;;) {
    const now = Date.now();
    if (zones.every((zone) => dayIn(zone, now) === dayIn(zone, now + MARGIN_MS))) return;
    console.info(`waiting for a new day to start in ${zones.join(', ')} before comparing days`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
