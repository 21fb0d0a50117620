import type { Db } from '../../db/client';
import { enqueueDeadlineEvents } from '../../callbacks/store/events';
import { wakeCallbackDispatchers } from '../../queue/wake-up';
import { atRiskRequests } from '../../services/deadlines/at-risk';
import { dbQuery, utc } from './sql';

/** Requests projected at most per organization and pass, for at-risk events (nearest deadlines first). */
const AT_RISK_MAX = 5_000;
const UNFULFILLED = `status NOT IN ('SUCCESS', 'CANCELED')`;

/**
 * Records the deadline callback events that fell due at `now`: `deletion_request.overdue` once
 * for each unfulfilled request past its deadline, `deletion_request.receipt_overdue` once for each
 * receipt still to confirm to the subject past its date (not for a canceled request), and `deletion_request.at_risk` once per deadline
 * for an unfulfilled one that an integration still working on it will probably not finish in
 * time (the dashboard's projection: its median time to SUCCESS over the last 90 days). Each
 * request is marked in the transaction that records its events, so a crash records them later
 * and never twice. At-risk projections are only made for organizations with an endpoint that
 * subscribed to them. Answers how many deliveries were recorded.
 */
export async function recordDeadlineEvents(db: Db, now = new Date()): Promise<number> {
  let recorded = await db.$transaction(async (tx) => {
    const query = dbQuery(tx);
    const overdue = await query<{ id: string }>(
      `UPDATE "DeletionRequest" SET "overdueEventAt" = ${utc('$1')}
        WHERE "dueAt" <= ${utc('$1')} AND "overdueEventAt" IS NULL AND ${UNFULFILLED}
        RETURNING id`,
      [now.toISOString()],
    );
    const receiptsOverdue = await query<{ id: string }>(
      `UPDATE "DeletionRequest" SET "receiptOverdueEventAt" = ${utc('$1')}
        WHERE "receiptConfirmBy" <= ${utc('$1')} AND "receiptOverdueEventAt" IS NULL AND "receiptConfirmedAt" IS NULL
          AND "receiptConfirmBy" IS NOT NULL AND status <> 'CANCELED'
        RETURNING id`,
      [now.toISOString()],
    );
    return (
      (await enqueueDeadlineEvents(query, 'deletion_request.overdue', overdue)) +
      (await enqueueDeadlineEvents(query, 'deletion_request.receipt_overdue', receiptsOverdue))
    );
  });

  const organizations = await db.callbackEndpoint.findMany({
    where: { enabled: true, events: { has: 'deletion_request.at_risk' } },
    select: { organizationId: true },
    distinct: ['organizationId'],
  });
  for (const { organizationId } of organizations) recorded += await recordAtRisk(db, organizationId, now);
  if (recorded > 0) wakeCallbackDispatchers(db);
  return recorded;
}

/**
 * The at-risk events of one organization: every unfulfilled request with a deadline ahead and no
 * event for it yet, nearest deadline first, page by page (up to AT_RISK_MAX per pass).
 */
async function recordAtRisk(db: Db, organizationId: string, now: Date): Promise<number> {
  let recorded = 0;
  for await (const page of atRiskRequests(db, organizationId, now, {
    max: AT_RISK_MAX,
    where: { atRiskEventAt: null },
  })) {
    if (page.length === 0) continue;
    const atRisk = page.map(({ id, dueAt, reasons }) => ({ id, dueAt: dueAt.toISOString(), reasons }));
    recorded += await db.$transaction(async (tx) => {
      const query = dbQuery(tx);
      // Only where the deadline is still the one projected against (an extension meanwhile
      // allows the new deadline its own event).
      const marked = new Set(
        (
          await query<{ id: string }>(
            `UPDATE "DeletionRequest" d SET "atRiskEventAt" = ${utc('$2')}
               FROM jsonb_to_recordset($1::jsonb) AS r(id text, "dueAt" text)
              WHERE d.id = r.id AND d."dueAt" = ${utc('r."dueAt"')} AND d."atRiskEventAt" IS NULL AND d.${UNFULFILLED}
              RETURNING d.id`,
            [JSON.stringify(atRisk.map(({ id, dueAt }) => ({ id, dueAt }))), now.toISOString()],
          )
        ).map((r) => r.id),
      );
      return enqueueDeadlineEvents(
        query,
        'deletion_request.at_risk',
        atRisk.filter((r) => marked.has(r.id)),
      );
    });
  }
  return recorded;
}
