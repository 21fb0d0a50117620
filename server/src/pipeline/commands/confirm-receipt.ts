import { businessDaysLeft } from '@shared/deadlines';
import { dateIn } from '@shared/zoned-days';
import type { Db, Tx } from '../../db/client';
import { AppError, notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { CLOCK_SKEW_MS } from './create';

interface ReceiptRow {
  id: string;
  workspaceId: string;
  createdAt: Date;
  receivedAt: Date | null;
  receiptConfirmBy: Date | null;
  receiptConfirmedAt: Date | null;
}

/** The request, locked (two concurrent calls become one after the other), in the actor's organization and workspaces. */
async function lockRequest(tx: Tx, actor: Actor, deletionRequestId: string): Promise<ReceiptRow> {
  const [row] = await tx.$queryRaw<ReceiptRow[]>`
    SELECT id, "workspaceId", "createdAt", "receivedAt", "receiptConfirmBy", "receiptConfirmedAt" FROM "DeletionRequest"
     WHERE id = ${deletionRequestId} AND "organizationId" = ${actor.organizationId} FOR UPDATE`;
  if (!row) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, row.workspaceId);
  return row;
}

/** A confirmation cannot have been sent in the future or before the request was received. */
function checkSentAt(row: ReceiptRow, confirmedAt: Date, now: Date): void {
  if (confirmedAt.getTime() > now.getTime() + CLOCK_SKEW_MS)
    throw new AppError('BAD_REQUEST', 'confirmedAt is in the future; give the time the confirmation was sent');
  const receivedAt = row.receivedAt ?? row.createdAt;
  // A date alone is the start of its day in UTC: the day of receipt itself is allowed.
  const receivedDay = new Date(receivedAt.toISOString().slice(0, 10));
  if (confirmedAt.getTime() < receivedDay.getTime())
    throw new AppError(
      'BAD_REQUEST',
      `confirmedAt is before the request was received (${receivedAt.toISOString().slice(0, 10)})`,
    );
}

/** Whether a confirmation sent at `confirmedAt` was on time, and how the audit trail says so. */
function timing(row: ReceiptRow, confirmedAt: Date): { onTime: boolean; text: string } {
  const late = row.receiptConfirmBy ? -businessDaysLeft(row.receiptConfirmBy, confirmedAt) : 0;
  const text = !row.receiptConfirmBy
    ? ''
    : late > 0
      ? ` (${late} business day${late === 1 ? '' : 's'} after ${day(row.receiptConfirmBy)}, the date it was due)`
      : ` (due by ${day(row.receiptConfirmBy)})`;
  return { onTime: late <= 0, text };
}

// The receipt's business days are California's: its due date is the day there.
const day = (date: Date) => dateIn(date, 'America/Los_Angeles');

/**
 * Records that the subject was told their request was received (CCPA asks for it within 10
 * business days; any request may record it), when it was sent (default: now) and how. Once per
 * request (a wrong record is corrected with `correctReceiptConfirmation`); audited as
 * `request.receipt_confirmed`, saying whether it was on time.
 */
export async function confirmReceipt(
  db: Db,
  actor: Actor,
  input: { deletionRequestId: string; confirmedAt?: Date; note?: string },
  now = new Date(),
) {
  const confirmedAt = input.confirmedAt ?? now;
  return db.$transaction(async (tx) => {
    const row = await lockRequest(tx, actor, input.deletionRequestId);
    if (row.receiptConfirmedAt)
      throw new AppError('CONFLICT', `Receipt of this request was already confirmed on ${day(row.receiptConfirmedAt)}`);
    checkSentAt(row, confirmedAt, now);
    await tx.deletionRequest.update({ where: { id: row.id }, data: { receiptConfirmedAt: confirmedAt } });
    const { onTime, text } = timing(row, confirmedAt);
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: row.id,
      action: 'request.receipt_confirmed',
      summary: `Receipt confirmed to the subject on ${day(confirmedAt)}${text}`,
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

/**
 * Corrects a recorded confirmation of receipt: the time it was really sent, or null when it was
 * not sent (recorded on the wrong request, say), which puts the request back among the receipts
 * to confirm. The record before and after and the reason are audited as
 * `request.receipt_confirmation_corrected`; the earlier entry stays as it was (the trail is
 * append-only).
 */
export async function correctReceiptConfirmation(
  db: Db,
  actor: Actor,
  input: { deletionRequestId: string; confirmedAt: Date | null; reason: string },
  now = new Date(),
) {
  return db.$transaction(async (tx) => {
    const row = await lockRequest(tx, actor, input.deletionRequestId);
    const before = row.receiptConfirmedAt;
    if (!before)
      throw new AppError('CONFLICT', 'No confirmation of receipt is recorded for this request; record one instead');
    const after = input.confirmedAt;
    if (after) checkSentAt(row, after, now);
    if (after?.getTime() === before.getTime())
      throw new AppError('CONFLICT', `The confirmation is already recorded as sent at ${before.toISOString()}`);
    await tx.deletionRequest.update({ where: { id: row.id }, data: { receiptConfirmedAt: after } });
    const corrected = after ? timing(row, after) : null;
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: row.id,
      action: 'request.receipt_confirmation_corrected',
      summary: after
        ? `Confirmation of receipt corrected: sent on ${day(after)}${corrected!.text}, not ${day(before)}`
        : `Confirmation of receipt withdrawn (recorded for ${day(before)}): the receipt is still to confirm`,
      details: {
        previousConfirmedAt: before.toISOString(),
        confirmedAt: after?.toISOString() ?? null,
        receiptConfirmBy: row.receiptConfirmBy?.toISOString() ?? null,
        ...(corrected ? { onTime: corrected.onTime } : {}),
        reason: input.reason,
      },
    });
    return {
      deletionRequestId: row.id,
      receiptConfirmBy: row.receiptConfirmBy?.toISOString() ?? null,
      receiptConfirmedAt: after?.toISOString() ?? null,
      previousConfirmedAt: before.toISOString(),
      onTime: corrected ? corrected.onTime : null,
    };
  });
}
