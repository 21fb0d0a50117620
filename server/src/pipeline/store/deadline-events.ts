import type { Db } from '../../db/client';
import { enqueueDeadlineEvents } from '../../callbacks/store/status-events';
import { wakeCallbackDispatchers } from '../../callbacks/wake-up';
import { completionProfiles, projectRisk } from '../../services/deadlines/at-risk';
import { dbQuery, utc } from './sql';

/** Requests looked at per organization and pass for at-risk events (nearest deadlines first). */
const AT_RISK_BATCH = 200;
const UNFULFILLED = `status NOT IN ('SUCCESS', 'CANCELED')`;

/**
 * Records the deadline callback events that fell due at `now`: `deletion_request.overdue` once
 * for each unfulfilled request past its deadline, and `deletion_request.at_risk` once per deadline
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
    return enqueueDeadlineEvents(query, 'deletion_request.overdue', overdue);
  });

  const organizations = await db.callbackEndpoint.findMany({
    where: { enabled: true, events: { has: 'deletion_request.at_risk' } },
    select: { organizationId: true },
    distinct: ['organizationId'],
  });
  for (const { organizationId } of organizations) {
    const candidates = await db.deletionRequest.findMany({
      where: {
        organizationId,
        dueAt: { gt: now },
        atRiskEventAt: null,
        status: { notIn: ['SUCCESS', 'CANCELED', 'FAILED', 'ERROR'] },
      },
      orderBy: { dueAt: 'asc' },
      take: AT_RISK_BATCH,
      select: {
        id: true,
        dueAt: true,
        integrationRequests: { select: { integrationId: true, integrationName: true, status: true, createdAt: true } },
      },
    });
    if (candidates.length === 0) continue;
    const profiles = await completionProfiles(db, organizationId, now);
    const atRisk = candidates.flatMap((r) => {
      const risk = projectRisk(
        {
          dueAt: r.dueAt,
          integrationRequests: r.integrationRequests.map((ir) => ({ ...ir, name: ir.integrationName })),
        },
        profiles,
        now,
      );
      return risk.atRisk ? [{ id: r.id, reasons: risk.reasons }] : [];
    });
    if (atRisk.length === 0) continue;
    recorded += await db.$transaction(async (tx) => {
      const query = dbQuery(tx);
      const marked = new Set(
        (
          await query<{ id: string }>(
            `UPDATE "DeletionRequest" SET "atRiskEventAt" = ${utc('$2')}
              WHERE id = ANY($1::text[]) AND "atRiskEventAt" IS NULL AND ${UNFULFILLED}
              RETURNING id`,
            [atRisk.map((r) => r.id), now.toISOString()],
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
  if (recorded > 0) wakeCallbackDispatchers(db);
  return recorded;
}
