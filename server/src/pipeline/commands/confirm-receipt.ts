import { businessDaysLeft } from '@shared/deadlines';
import type { Db } from '../../db/client';
import { AppError, notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { CLOCK_SKEW_MS } from './create';

/**
 * Records that the subject was told their request was received (CCPA asks for it within 10
 * business days; any request may record it), when it was sent (default: now) and how. Once per
 * request; audited as `request.receipt_confirmed`, saying whether it was on time.
 */
export async function confirmReceipt(
  db: Db,
  actor: Actor,
  input: { deletionRequestId: string; confirmedAt?: Date; note?: string },
  now = new Date(),
) {
  const confirmedAt = input.confirmedAt ?? now;
  if (confirmedAt.getTime() > now.getTime() + CLOCK_SKEW_MS)
    throw new AppError('BAD_REQUEST', 'confirmedAt is in the future; give the time the confirmation was sent');
  return db.$transaction(async (tx) => {
    // The row lock makes two concurrent confirmations one confirmation and one conflict.
    const [row] = await tx.$queryRaw<
      {
        id: string;
        workspaceId: string;
        createdAt: Date;
        receivedAt: Date | null;
        receiptConfirmBy: Date | null;
        receiptConfirmedAt: Date | null;
      }[]
    >`
      SELECT id, "workspaceId", "createdAt", "receivedAt", "receiptConfirmBy", "receiptConfirmedAt" FROM "DeletionRequest"
       WHERE id = ${input.deletionRequestId} AND "organizationId" = ${actor.organizationId} FOR UPDATE`;
    if (!row) throw notFound('Deletion request');
    assertWorkspaceAllowed(actor, row.workspaceId);
    if (row.receiptConfirmedAt)
      throw new AppError(
        'CONFLICT',
        `Receipt of this request was already confirmed on ${row.receiptConfirmedAt.toISOString().slice(0, 10)}`,
      );
    const receivedAt = row.receivedAt ?? row.createdAt;
    // A date alone is the start of its day in UTC: the day of receipt itself is allowed.
    const receivedDay = new Date(receivedAt.toISOString().slice(0, 10));
    if (confirmedAt.getTime() < receivedDay.getTime())
      throw new AppError(
        'BAD_REQUEST',
        `confirmedAt is before the request was received (${receivedAt.toISOString().slice(0, 10)})`,
      );
    await tx.deletionRequest.update({ where: { id: row.id }, data: { receiptConfirmedAt: confirmedAt } });
    const day = confirmedAt.toISOString().slice(0, 10);
    const late = row.receiptConfirmBy ? -businessDaysLeft(row.receiptConfirmBy, confirmedAt) : 0;
    const onTime = late <= 0;
    const timing = !row.receiptConfirmBy
      ? ''
      : late > 0
        ? ` (${late} business day${late === 1 ? '' : 's'} after ${row.receiptConfirmBy.toISOString().slice(0, 10)}, the date it was due)`
        : ` (due by ${row.receiptConfirmBy.toISOString().slice(0, 10)})`;
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: row.id,
      action: 'request.receipt_confirmed',
      summary: `Receipt confirmed to the subject on ${day}${timing}`,
      details: {
        confirmedAt: confirmedAt.toISOString(),
        receiptConfirmBy: row.receiptConfirmBy?.toISOString() ?? null,
        onTime,
        ...(input.note ? { note: input.note } : {}),
      },
    });
    return {
      deletionRequestId: row.id,
      receiptConfirmBy: row.receiptConfirmBy?.toISOString() ?? null,
      receiptConfirmedAt: confirmedAt.toISOString(),
      onTime,
    };
  });
}
