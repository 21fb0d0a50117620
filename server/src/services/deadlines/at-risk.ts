import type { DbOrTx } from '../../db/client';

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
 * left before the deadline (its start plus its median time to SUCCESS falls after dueAt).
 */
export function projectRisk(request: RiskInput, profiles: Map<string, CompletionProfile>, now: Date): RiskProjection {
  if (!request.dueAt) return { atRisk: false, reasons: [] };
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
