import { REQUEST_STATUSES, type RequestStatus } from '@shared/statuses';
import type { Db } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { AppError } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { completionProfiles, projectRisk } from '../deadlines/at-risk';
import { receiptToConfirmWhere, unfulfilledWhere } from '../deadlines/pending';
import { deletionRequestSelect, toDeletionRequestDto } from '../deletion-requests/serialize';
import { failuresOf } from './attention';
import type { Keyring } from '../../lib/crypto';
import { tasksLateForDeadline } from '../manual-tasks/list-tasks';
import { withMaskedIdentifier } from './masked-identifier';

const DAY_MS = 86_400_000;
const ATTENTION_LIMIT = 10;
const ATTENTION_STATUSES: RequestStatus[] = ['FAILED', 'ERROR'];
/** Unfulfilled requests with the nearest deadlines that the overview looks at. */
const DEADLINE_SCAN_LIMIT = 200;
const OPEN_STATUSES: RequestStatus[] = ['STAGING', 'PENDING', 'PROCESSING'];

type StatusCounts = Record<RequestStatus, number>;

const zeroCounts = (): StatusCounts => Object.fromEntries(REQUEST_STATUSES.map((s) => [s, 0])) as StatusCounts;

function assertTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new AppError('BAD_REQUEST', `Unknown time zone "${timeZone}"`);
  }
}

/** The calendar day (YYYY-MM-DD) of a moment in `timeZone`. */
const localDay = (timeZone: string) => {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (at: Date) => format.format(at);
};

/** Calendar days (YYYY-MM-DD) in `timeZone` from `days - 1` days ago to today, oldest first. */
export function dayKeys(now: Date, days: number, timeZone: string): string[] {
  const dayOf = localDay(timeZone);
  const keys: string[] = [];
  for (let i = days - 1; i >= 0; i--) keys.push(dayOf(new Date(now.getTime() - i * DAY_MS)));
  return [...new Set(keys)];
}

/**
 * Overview statistics of the organization over the last `days` days: requests by status,
 * requests per day by status (days cut in the viewer's time zone), success rate and median
 * time to completion per integration, and the latest requests that need attention.
 */
export async function getOverview(
  db: Db,
  keyring: Keyring,
  actor: Actor,
  input: { days: number; timeZone: string },
  now = new Date(),
) {
  assertTimeZone(input.timeZone);
  const days = dayKeys(now, input.days, input.timeZone);
  // From the start of the oldest local day: at most one extra day, then filtered by key.
  const since = new Date(now.getTime() - (input.days + 1) * DAY_MS);
  const organizationId = actor.organizationId;

  const weekAhead = new Date(now.getTime() + 7 * DAY_MS);
  const unfulfilled = { organizationId, ...unfulfilledWhere };
  const [
    openTotal,
    perDayRows,
    integrationRows,
    attentionRows,
    attentionTotal,
    overdueTotal,
    dueThisWeekTotal,
    unconfirmedReceiptTotal,
    deadlineRows,
    profiles,
  ] = await Promise.all([
    db.deletionRequest.count({ where: { organizationId, status: { in: OPEN_STATUSES } } }),
    // Counted per quarter hour in UTC, and each quarter put on its local day here with the same
    // time-zone data as the day keys: every UTC offset in use is a whole number of quarter hours,
    // and a zone the browser knows but the database's time-zone data does not cannot fail the page.
    db.$queryRaw<{ slot: Date; status: RequestStatus; count: number }[]>(Prisma.sql`
      SELECT date_trunc('hour', "createdAt") + floor(date_part('minute', "createdAt") / 15) * interval '15 minutes' AS slot,
             status::text AS status, count(*)::int AS count
      FROM "DeletionRequest"
      WHERE "organizationId" = ${organizationId} AND "createdAt" >= ${since}
      GROUP BY 1, 2`),
    db.$queryRaw<
      {
        integrationId: string | null;
        name: string;
        type: string;
        total: number;
        succeeded: number;
        failed: number;
        canceled: number;
        active: number;
        medianSeconds: number | null;
      }[]
    >(Prisma.sql`
      SELECT ir."integrationId" AS "integrationId",
             (array_agg(ir."integrationName" ORDER BY ir."createdAt" DESC))[1] AS name,
             ir."integrationType"::text AS type,
             count(*)::int AS total,
             (count(*) FILTER (WHERE ir.status = 'SUCCESS'))::int AS succeeded,
             (count(*) FILTER (WHERE ir.status IN ('FAILED', 'ERROR')))::int AS failed,
             (count(*) FILTER (WHERE ir.status = 'CANCELED'))::int AS canceled,
             (count(*) FILTER (WHERE ir.status IN ('STAGING', 'PENDING', 'PROCESSING')))::int AS active,
             (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ir."completedAt" - ir."createdAt"))
                FILTER (WHERE ir.status = 'SUCCESS' AND ir."completedAt" IS NOT NULL))::float8 AS "medianSeconds"
      FROM "IntegrationRequest" ir
      JOIN "DeletionRequest" dr ON dr.id = ir."deletionRequestId"
      WHERE dr."organizationId" = ${organizationId} AND ir."createdAt" >= ${since}
      GROUP BY ir."integrationId", ir."integrationType"
      ORDER BY total DESC
      LIMIT 50`),
    db.deletionRequest.findMany({
      where: { organizationId, status: { in: ATTENTION_STATUSES } },
      orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
      take: ATTENTION_LIMIT,
      select: {
        ...deletionRequestSelect,
        workspace: { select: { name: true } },
        integrationRequests: {
          where: { status: { in: ATTENTION_STATUSES } },
          select: {
            id: true,
            integrationId: true,
            integrationName: true,
            integrationType: true,
            status: true,
            lastError: true,
          },
          orderBy: [{ integrationName: 'asc' }, { id: 'asc' }],
        },
      },
    }),
    db.deletionRequest.count({ where: { organizationId, status: { in: ATTENTION_STATUSES } } }),
    db.deletionRequest.count({ where: { ...unfulfilled, dueAt: { lte: now } } }),
    db.deletionRequest.count({ where: { ...unfulfilled, dueAt: { gt: now, lte: weekAhead } } }),
    // CCPA requests whose receipt is still to be confirmed to the subject (the list's "unconfirmed").
    db.deletionRequest.count({ where: { organizationId, ...receiptToConfirmWhere } }),
    // The nearest deadlines of unfulfilled requests: the overdue and due-this-week lists and the at-risk projection.
    db.deletionRequest.findMany({
      where: { ...unfulfilled, dueAt: { not: null } },
      orderBy: [{ dueAt: 'asc' }, { id: 'asc' }],
      take: DEADLINE_SCAN_LIMIT,
      select: {
        ...deletionRequestSelect,
        workspace: { select: { name: true } },
        integrationRequests: { select: { integrationId: true, integrationName: true, status: true, createdAt: true } },
      },
    }),
    completionProfiles(db, organizationId, now),
  ]);
  const deadlines = deadlineRows.map(({ workspace, integrationRequests, ...row }) => {
    const risk = projectRisk(
      { dueAt: row.dueAt, integrationRequests: integrationRequests.map((ir) => ({ ...ir, name: ir.integrationName })) },
      profiles,
      now,
    );
    return {
      ...withMaskedIdentifier(toDeletionRequestDto(row), keyring),
      workspaceName: workspace.name,
      atRisk: risk.atRisk,
      riskReasons: risk.reasons,
    };
  });

  const perDayMap = new Map(days.map((day) => [day, zeroCounts()]));
  const dayOf = localDay(input.timeZone);
  for (const row of perDayRows) {
    const counts = perDayMap.get(dayOf(row.slot));
    if (counts) counts[row.status] += row.count;
  }
  // Counts by status cover exactly the chart's days, so the totals agree with the bars.
  const windowTotals = zeroCounts();
  for (const counts of perDayMap.values()) for (const s of REQUEST_STATUSES) windowTotals[s] += counts[s];

  return {
    days: input.days,
    timeZone: input.timeZone,
    byStatus: windowTotals,
    total: REQUEST_STATUSES.reduce((sum, s) => sum + windowTotals[s], 0),
    /** Requests still in flight, whenever they were created. */
    openTotal,
    perDay: [...perDayMap.entries()].map(([day, counts]) => ({ day, counts })),
    integrations: integrationRows.map((row) => {
      const finished = row.succeeded + row.failed + row.canceled;
      return { ...row, successRate: finished > 0 ? row.succeeded / finished : null };
    }),
    // Which integrations failed and why, so the list says more than a count.
    needsAttention: attentionRows.map(({ workspace, integrationRequests, ...row }) => ({
      ...withMaskedIdentifier(toDeletionRequestDto(row), keyring),
      workspaceName: workspace.name,
      failures: failuresOf(integrationRequests),
    })),
    needsAttentionTotal: attentionTotal,
    overdueTotal,
    dueThisWeekTotal,
    unconfirmedReceiptTotal,
    overdue: deadlines.filter((r) => r.dueAt && new Date(r.dueAt) <= now).slice(0, ATTENTION_LIMIT),
    dueThisWeek: deadlines
      .filter((r) => r.dueAt && new Date(r.dueAt) > now && new Date(r.dueAt) <= weekAhead)
      .slice(0, ATTENTION_LIMIT),
    atRisk: deadlines.filter((r) => r.atRisk && r.dueAt && new Date(r.dueAt) > now).slice(0, ATTENTION_LIMIT),
    // Manual tasks that will be late for their request's legal deadline.
    lateManualTasks: await tasksLateForDeadline(db, organizationId, now, ATTENTION_LIMIT),
  };
}
