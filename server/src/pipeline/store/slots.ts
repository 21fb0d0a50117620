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

/** How much one step's count of calls moves an integration's `callsPerStep` (a moving average of the recent steps). */
const CALLS_WEIGHT = 0.2;
/** The most calls one slot stands for: a step that pages through thousands does not hold a destination for minutes ahead. */
const MAX_CALLS_PER_STEP = 50;
/** The average with this step's count; within 1 % of one call it is one (so single-call steps settle and write nothing). */
const LEARNED = `"callsPerStep" * ${1 - CALLS_WEIGHT} + $2::float8 * ${CALLS_WEIGHT}`;

/**
 * A step of a rate-limited integration made `calls` calls, its slot standing for `slotCalls` (a
 * search before the delete, a page more, one call per identifier): the calls beyond move its next
 * free slot on by as many, so the calls, not only the steps, keep to `maxRequestsPerSecond`; and
 * `callsPerStep` learns the count, so that the claims' slots stand for as many calls as a step
 * makes (and a second's slots do not go to twice the calls before the steps end). A step whose
 * count matches its slot's changes nothing (and writes nothing).
 */
export async function settleSlotCalls(
  query: Query,
  integrationId: string,
  calls: number,
  slotCalls: number,
): Promise<void> {
  if (calls === slotCalls) return;
  await query(
    `UPDATE "Integration"
        SET "nextSlotAt" = CASE WHEN $2::float8 > $3::float8
                           THEN GREATEST("nextSlotAt", ${NOW_UTC}) + make_interval(secs => ($2::float8 - $3::float8) / "maxRequestsPerSecond")
                           ELSE "nextSlotAt" END,
            "callsPerStep" = CASE WHEN ${LEARNED} < 1.01 THEN 1 ELSE LEAST(${MAX_CALLS_PER_STEP}, ${LEARNED}) END
      WHERE id = $1 AND "maxRequestsPerSecond" IS NOT NULL`,
    [integrationId, calls, slotCalls],
  );
}
