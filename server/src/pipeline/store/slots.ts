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
