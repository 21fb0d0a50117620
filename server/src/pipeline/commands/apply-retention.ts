import type { Db } from '../../db/client';
import { recordAudit } from '../../services/audit/record-audit';
import { dueForRetention, removeIdentifier } from '../store/retention';
const BATCH = 500;

export interface RetentionResult {
  organizations: number;
  hashed: number;
  deleted: number;
}

/**
 * What "apply now" would do in one organization: its policy and how many finished requests
 * it would hash or delete at `now` (the count the confirmation shows).
 */
export async function previewRetention(db: Db, organizationId: string, now = new Date()) {
  const org = await db.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: { retentionAction: true, retentionDays: true },
  });
  if (org.retentionAction === 'NONE') return { action: org.retentionAction, days: org.retentionDays, due: 0 };
  const cutoff = new Date(now.getTime() - org.retentionDays * 86_400_000);
  const purge = org.retentionAction === 'DELETE';
  const due = await db.deletionRequest.count({
    where: {
      organizationId,
      completedAt: { lte: cutoff },
      ...(purge ? { purgedAt: null } : { hashed: false, purgedAt: null }),
    },
  });
  return { action: org.retentionAction, days: org.retentionDays, due };
}

/**
 * Applies each organization's retention policy to requests that finished at least
 * `retentionDays` ago (0 = at once):
 * - HASH replaces the identifier with its keyed hash (HMAC-SHA256 with the service pepper:
 *   exact search still works, the value cannot be recovered) and removes the audit payloads
 *   that carried it (outgoing HTTP bodies, URLs), keeping the summaries;
 * - DELETE removes the identifier and the audit payloads, keeping the non-personal skeleton
 *   (ids, statuses, timestamps, integration names).
 * Idempotent: running it twice changes nothing more. Each request gets an audit entry.
 */
export async function applyRetention(db: Db, now = new Date(), organizationId?: string): Promise<RetentionResult> {
  const organizations = await db.organization.findMany({
    where: { retentionAction: { not: 'NONE' }, ...(organizationId ? { id: organizationId } : {}) },
    select: { id: true, retentionAction: true, retentionDays: true },
  });
  const result: RetentionResult = { organizations: organizations.length, hashed: 0, deleted: 0 };
  for (const org of organizations) {
    const cutoff = new Date(now.getTime() - org.retentionDays * 86_400_000);
    const purge = org.retentionAction === 'DELETE';
    for (;;) {
      const due = await dueForRetention(db, org.id, cutoff, purge, BATCH);
      if (due.length === 0) break;
      for (const request of due) {
        const applied = await db.$transaction(async (tx) => {
          if (!(await removeIdentifier(tx, request, purge, now, cutoff))) return false;
          await recordAudit(tx, null, {
            organizationId: org.id,
            deletionRequestId: request.id,
            action: purge ? 'request.purged' : 'request.hashed',
            summary: purge
              ? `Retention policy: identifier and audit payloads deleted ${org.retentionDays} day(s) after completion`
              : `Retention policy: identifier hashed and audit payloads removed ${org.retentionDays} day(s) after completion`,
          });
          return true;
        });
        // Not applied: retried since it was picked (no longer finished), so no longer due.
        if (applied && purge) result.deleted++;
        else if (applied) result.hashed++;
      }
    }
  }
  return result;
}
