import type { Tx } from '../db/client';
import { recordAudit } from '../services/audit/record-audit';
import { isTerminal, NO_INTEGRATIONS_REASON, rollUpStatus } from './state-machine';

/**
 * Recomputes a deletion request's status from its integration requests. The caller holds
 * the parent's row lock (`lockDeletionRequest`), so concurrent finishes cannot interleave.
 */
export async function rollUpDeletionRequest(tx: Tx, deletionRequestId: string): Promise<void> {
  const [parent, children] = await Promise.all([
    tx.deletionRequest.findUniqueOrThrow({ where: { id: deletionRequestId }, select: { status: true, organizationId: true, completedAt: true } }),
    tx.integrationRequest.findMany({ where: { deletionRequestId }, select: { status: true, completedAt: true } }),
  ]);
  const status = rollUpStatus(children.map((c) => c.status));
  const finished = isTerminal(status);
  const completedAt = finished
    ? (children.reduce<Date | null>((latest, c) => (c.completedAt && (!latest || c.completedAt > latest) ? c.completedAt : latest), null) ?? new Date())
    : null;
  const statusReason = children.length === 0 ? NO_INTEGRATIONS_REASON : null;
  if (parent.status === status && Boolean(parent.completedAt) === finished) return;
  await tx.deletionRequest.update({ where: { id: deletionRequestId }, data: { status, completedAt, statusReason } });
  await recordAudit(tx, null, {
    organizationId: parent.organizationId,
    deletionRequestId,
    action: finished ? 'request.completed' : 'request.status_changed',
    outcome: status,
    summary: `Request ${parent.status} → ${status}`,
  });
}

export async function lockDeletionRequest(tx: Tx, deletionRequestId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "DeletionRequest" WHERE id = ${deletionRequestId} FOR UPDATE`;
}
