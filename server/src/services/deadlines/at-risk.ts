import type { DbOrTx } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';

const DAY_MS = 86_400_000;
/** How far back observed completion times count, and how many make a projection. */
const HISTORY_DAYS = 90;
const MIN_SAMPLES = 3;

export interface CompletionProfile {
  integrationId: string;
  name: string;
  /** Median time from request to SUCCESS, in milliseconds. */
  medianMs: number;
  samples: number;
}

/** Each integration's observed time to SUCCESS over the last 90 days (median, at least 3 samples). */
export async function completionProfiles(
  db: DbOrTx,
  organizationId: string,
  now = new Date(),
): Promise<Map<string, CompletionProfile>> {
  const since = new Date(now.getTime() - HISTORY_DAYS * DAY_MS);
  const rows = await db.$queryRaw<{ integrationId: string; name: string; medianMs: number; samples: number }[]>`
    SELECT ir."integrationId" AS "integrationId",
           (array_agg(ir."integrationName" ORDER BY ir."createdAt" DESC))[1] AS name,
           (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ir."completedAt" - ir."createdAt")) * 1000)::float8 AS "medianMs",
           count(*)::int AS samples
      FROM "IntegrationRequest" ir JOIN "DeletionRequest" dr ON dr.id = ir."deletionRequestId"
     WHERE dr."organizationId" = ${organizationId} AND ir.status = 'SUCCESS' AND ir."completedAt" IS NOT NULL
       AND ir."integrationId" IS NOT NULL AND ir."completedAt" >= ${since}
     GROUP BY ir."integrationId"
    HAVING count(*) >= ${MIN_SAMPLES}`;
  return new Map(rows.map((r) => [r.integrationId, r]));
}

export interface RiskInput {
  dueAt: Date | null;
  integrationRequests: { integrationId: string | null; name: string; status: string; createdAt: Date }[];
}

export interface RiskProjection {
  atRisk: boolean;
  /** e.g. "Amplitude takes about 14 days: at risk"; one line per integration that would finish after the deadline. */
  reasons: string[];
}

const ACTIVE = new Set(['STAGING', 'PENDING', 'PROCESSING']);

function humanDuration(ms: number): string {
  const days = ms / DAY_MS;
  if (days >= 1.5) return `${Math.round(days)} days`;
  const hours = ms / 3_600_000;
  if (hours >= 1.5) return `${Math.round(hours)} hours`;
  return `${Math.max(1, Math.round(ms / 60_000))} minutes`;
}

/**
 * At risk: an integration still working on the request usually takes longer than what is
 * left before the deadline (its start plus its median time to SUCCESS falls after dueAt). A
 * request past its deadline is overdue, which says more: it is not also "at risk".
 */
export function projectRisk(request: RiskInput, profiles: Map<string, CompletionProfile>, now: Date): RiskProjection {
  if (!request.dueAt || request.dueAt.getTime() <= now.getTime()) return { atRisk: false, reasons: [] };
  const reasons: string[] = [];
  for (const ir of request.integrationRequests) {
    if (!ACTIVE.has(ir.status) || !ir.integrationId) continue;
    const profile = profiles.get(ir.integrationId);
    if (!profile) continue;
    const projected = Math.max(now.getTime(), ir.createdAt.getTime() + profile.medianMs);
    if (projected > request.dueAt.getTime())
      reasons.push(`${ir.name} takes about ${humanDuration(profile.medianMs)}: at risk`);
  }
  return { atRisk: reasons.length > 0, reasons };
}

/** Requests read per query when listing the requests at risk. */
const AT_RISK_PAGE = 200;

export interface AtRiskRequest {
  id: string;
  dueAt: Date;
  reasons: string[];
}

/**
 * The unfulfilled requests of an organization whose deadline is ahead and that an integration
 * still working on them will probably not finish in time, nearest deadline first, one page of
 * them per query (requests read: at most `max`; `where` narrows the candidates further). Nothing
 * without an integration history to project from. Returns whether it stopped at `max` with more
 * candidates left unread (`capped`).
 */
export async function* atRiskRequests(
  db: DbOrTx,
  organizationId: string,
  now: Date,
  options: { max: number; where?: Prisma.DeletionRequestWhereInput },
): AsyncGenerator<AtRiskRequest[], { capped: boolean }> {
  const profiles = await completionProfiles(db, organizationId, now);
  if (profiles.size === 0) return { capped: false };
  let after: { dueAt: Date; id: string } | null = null;
  for (let read = 0; read < options.max; read += AT_RISK_PAGE) {
    const candidates: { id: string; dueAt: Date | null; integrationRequests: RiskRow[] }[] =
      await db.deletionRequest.findMany({
        where: {
          ...options.where,
          organizationId,
          dueAt: { gt: now },
          status: { in: ['STAGING', 'PENDING', 'PROCESSING'] },
          ...(after ? { OR: [{ dueAt: { gt: after.dueAt } }, { dueAt: after.dueAt, id: { gt: after.id } }] } : {}),
        },
        orderBy: [{ dueAt: 'asc' }, { id: 'asc' }],
        take: Math.min(AT_RISK_PAGE, options.max - read),
        select: {
          id: true,
          dueAt: true,
          integrationRequests: {
            select: { integrationId: true, integrationName: true, status: true, createdAt: true },
          },
        },
      });
    yield candidates.flatMap(({ id, dueAt, integrationRequests }) => {
      const risk = projectRisk(
        { dueAt, integrationRequests: integrationRequests.map((ir) => ({ ...ir, name: ir.integrationName })) },
        profiles,
        now,
      );
      return risk.atRisk && dueAt ? [{ id, dueAt, reasons: risk.reasons }] : [];
    });
    const last = candidates.at(-1);
    if (candidates.length < Math.min(AT_RISK_PAGE, options.max - read) || !last?.dueAt) return { capped: false };
    after = { dueAt: last.dueAt, id: last.id };
  }
  return { capped: true };
}

type RiskRow = { integrationId: string | null; integrationName: string; status: string; createdAt: Date };
