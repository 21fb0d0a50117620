import { dueAtFor, extendedDueAtFor, receiptConfirmByFor } from '@shared/deadlines';
import { UNFULFILLED_STATUSES } from '@shared/status-values';
import { dateIn } from '@shared/zoned-days';
import type { Db } from '../../db/client';
import { recordAudit } from '../../services/audit/record-audit';
import { storedRegulationRule } from '../../services/deadlines/regulations';

/**
 * Deadlines are counted on calendar days in the organization's time zone and end at the end of
 * the last day there (rule 2). Requests created before that rule carry deadlines counted as
 * receipt + N × 24 hours (rule 1), which can end a day after the law's across a clock change
 * or at a month end. This pass counts each request still open under rule 1 again: where a
 * deadline moves (earlier or later) it is rewritten and audited as
 * `request.deadline_recounted` with both values; fulfilled and canceled requests keep what
 * they were given. Every request it reads is marked rule 2, so it runs once per request.
 */
export const CURRENT_DEADLINE_RULE = 2;
const BATCH = 500;

interface LegacyRow {
  id: string;
  organizationId: string;
  status: string;
  regulation: string | null;
  createdAt: Date;
  receivedAt: Date | null;
  dueAt: Date | null;
  dueExtendedAt: Date | null;
  receiptConfirmBy: Date | null;
  receiptConfirmedAt: Date | null;
  timeZone: string;
  policyDays: number | null;
  policyExtensionDays: number | null;
}

export interface RecountResult {
  read: number;
  recounted: number;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;
const same = (a: Date | null, b: Date | null) => iso(a) === iso(b);

/** The deadlines rule 2 gives a request, or null for a regulation no longer known (it keeps its own). */
function recounted(row: LegacyRow): { dueAt: Date | null; receiptConfirmBy: Date | null } | null {
  if (!row.regulation || !row.dueAt) return null;
  const policy = row.policyDays === null ? null : { days: row.policyDays, extensionDays: row.policyExtensionDays ?? 0 };
  const rule = storedRegulationRule(row.regulation, policy);
  if (!rule) return null;
  const received = row.receivedAt ?? row.createdAt;
  const dueAt = row.dueExtendedAt
    ? extendedDueAtFor(rule, received, row.timeZone)
    : dueAtFor(rule, received, row.timeZone);
  // A receipt already confirmed keeps the date it was measured against.
  const receiptConfirmBy = row.receiptConfirmedAt ? row.receiptConfirmBy : receiptConfirmByFor(rule.name, received);
  return { dueAt: dueAt ?? row.dueAt, receiptConfirmBy };
}

async function recountBatch(db: Db): Promise<RecountResult> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<LegacyRow[]>`
      SELECT r.id, r."organizationId", r.status::text AS status, r.regulation, r."createdAt", r."receivedAt",
             r."dueAt", r."dueExtendedAt", r."receiptConfirmBy", r."receiptConfirmedAt", o."timeZone",
             p.days AS "policyDays", p."extensionDays" AS "policyExtensionDays"
        FROM "DeletionRequest" r
        JOIN "Organization" o ON o.id = r."organizationId"
        LEFT JOIN "RegulationPolicy" p ON p."organizationId" = r."organizationId" AND p.name = r.regulation
       WHERE r."deadlineRule" < ${CURRENT_DEADLINE_RULE}
       ORDER BY r.id
       LIMIT ${BATCH}
         FOR UPDATE OF r SKIP LOCKED`;
    let changed = 0;
    for (const row of rows) {
      if (!(UNFULFILLED_STATUSES as string[]).includes(row.status)) continue;
      const next = recounted(row);
      if (!next || (same(next.dueAt, row.dueAt) && same(next.receiptConfirmBy, row.receiptConfirmBy))) continue;
      await tx.deletionRequest.update({
        where: { id: row.id },
        data: { dueAt: next.dueAt, receiptConfirmBy: next.receiptConfirmBy },
      });
      const day = (d: Date | null) => (d ? dateIn(d, row.timeZone) : 'none');
      await recordAudit(tx, null, {
        organizationId: row.organizationId,
        deletionRequestId: row.id,
        action: 'request.deadline_recounted',
        summary:
          `Deadline counted on calendar days in ${row.timeZone}: due ${day(next.dueAt)}` +
          (same(next.receiptConfirmBy, row.receiptConfirmBy)
            ? ''
            : `, receipt to confirm by ${day(next.receiptConfirmBy)}`),
        details: {
          timeZone: row.timeZone,
          previousDueAt: iso(row.dueAt),
          dueAt: iso(next.dueAt),
          previousReceiptConfirmBy: iso(row.receiptConfirmBy),
          receiptConfirmBy: iso(next.receiptConfirmBy),
        },
      });
      changed++;
    }
    if (rows.length > 0) {
      await tx.$executeRaw`
        UPDATE "DeletionRequest" SET "deadlineRule" = ${CURRENT_DEADLINE_RULE}
         WHERE id = ANY(${rows.map((r) => r.id)}::text[])`;
    }
    return { read: rows.length, recounted: changed };
  });
}

/** Counts again every request still under an older deadline rule, a batch at a time. */
export async function recountLegacyDeadlines(db: Db): Promise<RecountResult> {
  const total: RecountResult = { read: 0, recounted: 0 };
  for (;;) {
    const batch = await recountBatch(db);
    total.read += batch.read;
    total.recounted += batch.recounted;
    if (batch.read < BATCH) return total;
  }
}
