const dayIn = (zone: string, at: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

/**
 * Waits (if need be) until no new day starts in any of these zones within `marginMs`: a test that
 * compares what "today" is in two zones holds only while neither calendar turns under it. At most
 * `marginMs` and a half-minute's wait, a few times a day.
 */
export async function clearOfDayChange(zones: string[], marginMs = 5 * 60_000): Promise<void> {
  for (;;) {
    const now = Date.now();
    if (zones.every((zone) => dayIn(zone, now) === dayIn(zone, now + marginMs))) return;
    console.info(`waiting for a new day to start in ${zones.join(', ')} before comparing days`);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
  }
}
