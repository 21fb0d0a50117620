import { NOW_UTC, utc, type Query } from './sql';

/**
 * No call to the integration starts before `until` (a 429's Retry-After): every worker's claim
 * skips it until then. Only ever moves the slot later.
 */
export async function pushNextSlot(query: Query, integrationId: string, until: Date): Promise<void> {
  await query(
    `UPDATE "Integration" SET "nextSlotAt" = GREATEST("nextSlotAt", ${utc('$2')})
      WHERE id = $1 AND ${utc('$2')} > ${NOW_UTC}`,
    [integrationId, until.toISOString()],
  );
}

/**
 * A step made `extra` calls to a rate-limited integration beyond the one its slot stood for (a
 * search before the delete, a page more, one call per identifier): its next free slot moves on
 * by as many, so the calls, not only the steps, keep to `maxRequestsPerSecond`.
 */
export async function takeExtraSlots(query: Query, integrationId: string, extra: number): Promise<void> {
  await query(
    `UPDATE "Integration"
        SET "nextSlotAt" = GREATEST("nextSlotAt", ${NOW_UTC}) + make_interval(secs => $2::float8 / "maxRequestsPerSecond")
      WHERE id = $1 AND "maxRequestsPerSecond" IS NOT NULL`,
    [integrationId, extra],
  );
}
