import type { Db } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { AppError, notFound } from '../../lib/errors';
import type { Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { lockDeletionRequest } from '../store/roll-up';
import { dbQuery } from '../store/sql';
import { createDeletionRequest } from './create';

/**
 * The retry offered when re-verification found the subject's rows again: a new deletion
 * request for the same subject, workspace and regulation (SUCCESS stays final on the old one,
 * which records the link). Asking twice answers the same new request.
 */
export async function deleteAgain(deps: { prisma: Db; keyring: Keyring }, actor: Actor, deletionRequestId: string) {
  const request = await deps.prisma.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: {
      workspaceId: true,
      identifier: true,
      hashed: true,
      regulation: true,
      integrationRequests: { where: { reappearedAt: { not: null } }, select: { id: true } },
    },
  });
  if (!request) throw notFound('Deletion request');
  if (request.integrationRequests.length === 0)
    throw new AppError('CONFLICT', 'Re-verification found no data of this request again');
  if (!request.identifier || request.hashed)
    throw new AppError('CONFLICT', 'The retention policy removed the identifier; create a new request with it');
  const { deletionRequest } = await createDeletionRequest(deps, actor, {
    workspace: { id: request.workspaceId },
    identifier: request.identifier,
    regulation: request.regulation ?? undefined,
    idempotencyKey: `reappeared_${deletionRequestId}`,
  });
  // The link is written once per new request, on a replay too: a first call that stopped after
  // the new request was created (and before its link) leaves it to the next one.
  await deps.prisma.$transaction(async (tx) => {
    await lockDeletionRequest(dbQuery(tx), deletionRequestId);
    const [linked] = await dbQuery(tx)<{ count: number }>(
      `SELECT count(*)::int AS count FROM "AuditLog"
        WHERE "deletionRequestId" = $1 AND action = 'request.deleted_again' AND details->>'deletionRequestId' = $2`,
      [deletionRequestId, deletionRequest.id],
    );
    if (linked!.count > 0) return;
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId,
      action: 'request.deleted_again',
      summary: `Deleted again after data reappeared: ${deletionRequest.id}`,
      details: { deletionRequestId: deletionRequest.id },
    });
  });
  return { deletionRequestId: deletionRequest.id };
}
