import { MAX_IDENTIFIERS_PER_REQUEST } from '@shared/identifiers';
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
 * request for the same subject (its primary identifier and every other one it had), workspace
 * and regulation (SUCCESS stays final on the old one, which records the link). Asking twice
 * answers the same new request.
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
      // Every identifier it reached the destinations by: given with it or found by its lookups.
      identifiers: {
        where: { value: { not: null } },
        select: { type: true, value: true, primary: true, source: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      },
    },
  });
  if (!request) throw notFound('Deletion request');
  if (request.integrationRequests.length === 0)
    throw new AppError('CONFLICT', 'Re-verification found no data of this request again');
  if (!request.identifier || request.hashed)
    throw new AppError('CONFLICT', 'The retention policy removed the identifier; create a new request with it');
  // The new request carries the person's other identifiers too (a store that takes user ids is
  // sent them again; its lookups might not find them now that the rows they read are deleted),
  // those given with the request first, within the limit of a request.
  const primaryType = request.identifiers.find((i) => i.primary)?.type;
  const others = request.identifiers
    .filter((i) => !i.primary && i.type !== null)
    .sort((a, b) => Number(b.source === 'request') - Number(a.source === 'request'))
    .slice(0, MAX_IDENTIFIERS_PER_REQUEST - 1)
    .map((i) => ({ type: i.type!, value: i.value! }));
  const idempotencyKey = `reappeared_${deletionRequestId}`;
  // Asked before (also by a version that sent the primary identifier alone): that request.
  const earlier = await deps.prisma.deletionRequest.findUnique({
    where: {
      organizationId_createdByUserId_idempotencyKey: {
        organizationId: actor.organizationId,
        createdByUserId: actor.userId,
        idempotencyKey,
      },
    },
    select: { id: true },
  });
  const deletionRequest =
    earlier ??
    (
      await createDeletionRequest(deps, actor, {
        workspace: { id: request.workspaceId },
        identifier: request.identifier,
        // A request with its identifier alone is created as before.
        ...(others.length > 0 ? { identifierType: primaryType ?? undefined, identifiers: others } : {}),
        regulation: request.regulation ?? undefined,
        idempotencyKey,
      })
    ).deletionRequest;
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
