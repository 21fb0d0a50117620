import { extendedDueAtFor, extensionLabel } from '@shared/deadlines';
import { dateIn } from '@shared/zoned-days';
import type { Db } from '../../db/client';
import { AppError, notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { resolveRegulation } from '../../services/deadlines/regulations';

/** A request the deadline no longer binds. A FAILED or ERROR one is still unfulfilled (it may be retried): its deadline counts. */
const CLOSED = ['SUCCESS', 'CANCELED'];

/**
 * Extends a request's legal deadline once, by what its regulation allows (GDPR: two further
 * months; CCPA: 45 days; a custom policy: its extension days), with the reason that must be
 * given to the subject. Audited as `request.deadline_extended`.
 */
export async function extendDeadline(
  db: Db,
  actor: Actor,
  input: { deletionRequestId: string; reason: string },
  now = new Date(),
) {
  return db.$transaction(async (tx) => {
    // The row lock makes two concurrent extensions one extension and one conflict.
    const [row] = await tx.$queryRaw<
      {
        id: string;
        workspaceId: string;
        status: string;
        regulation: string | null;
        createdAt: Date;
        receivedAt: Date | null;
        dueAt: Date | null;
        dueExtendedAt: Date | null;
      }[]
    >`
      SELECT id, "workspaceId", status::text AS status, regulation, "createdAt", "receivedAt", "dueAt", "dueExtendedAt" FROM "DeletionRequest"
       WHERE id = ${input.deletionRequestId} AND "organizationId" = ${actor.organizationId} FOR UPDATE`;
    if (!row) throw notFound('Deletion request');
    assertWorkspaceAllowed(actor, row.workspaceId);
    if (!row.regulation || !row.dueAt) throw new AppError('CONFLICT', 'This request has no legal deadline to extend');
    // The law allows extending within the first period (and telling the subject why then):
    // a deadline already missed stays missed, and the record shows it.
    if (now.getTime() >= row.dueAt.getTime())
      throw new AppError(
        'CONFLICT',
        `The deadline passed on ${row.dueAt.toISOString().slice(0, 10)}; it can only be extended before it passes`,
      );
    if (row.dueExtendedAt)
      throw new AppError('CONFLICT', 'The deadline of this request was already extended; it can be extended once');
    if (CLOSED.includes(row.status))
      throw new AppError('CONFLICT', `The request has ended (${row.status}); there is no deadline left to extend`);
    const rule = await resolveRegulation(tx, actor.organizationId, row.regulation);
    const { timeZone } = await tx.organization.findUniqueOrThrow({
      where: { id: actor.organizationId },
      select: { timeZone: true },
    });
    const dueAt = extendedDueAtFor(rule, row.receivedAt ?? row.createdAt, timeZone);
    if (!dueAt) throw new AppError('CONFLICT', `The ${rule.name} policy allows no extension`);
    await tx.deletionRequest.update({
      where: { id: row.id },
      // A new deadline: the at-risk callback event may be sent again for it.
      data: { dueAt, dueExtendedAt: now, dueExtensionReason: input.reason, atRiskEventAt: null },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: row.id,
      action: 'request.deadline_extended',
      summary: `Deadline extended by ${extensionLabel(rule)} (${rule.name}) to ${dateIn(dueAt, timeZone)}`,
      details: {
        regulation: rule.name,
        previousDueAt: row.dueAt.toISOString(),
        dueAt: dueAt.toISOString(),
        reason: input.reason,
      },
    });
    return {
      deletionRequestId: row.id,
      regulation: rule.name,
      dueAt: dueAt.toISOString(),
      dueExtendedAt: now.toISOString(),
      dueExtensionReason: input.reason,
    };
  });
}
