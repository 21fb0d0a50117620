import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from './serialize';

/** One deletion request with its integration requests, in the actor's organization. */
export async function getDeletionRequest(db: Db, actor: Actor, deletionRequestId: string, options: { fetchHashed?: boolean } = {}) {
  const row = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { ...deletionRequestSelect, integrationRequests: { select: integrationRequestSelect, orderBy: { createdAt: 'asc' } } },
  });
  if (!row) throw notFound('Deletion request');
  return toDeletionRequestDto(row, options);
}

/** The request's audit trail, oldest first: every attempt, status check, cancel and completion. */
export async function getAuditTrail(db: Db, actor: Actor, deletionRequestId: string) {
  const exists = await db.deletionRequest.count({ where: { id: deletionRequestId, organizationId: actor.organizationId } });
  if (!exists) throw notFound('Deletion request');
  const entries = await db.auditLog.findMany({
    where: { deletionRequestId, organizationId: actor.organizationId },
    orderBy: { id: 'asc' },
    take: 2000,
    select: { id: true, integrationRequestId: true, actorType: true, actorId: true, action: true, outcome: true, summary: true, details: true, createdAt: true },
  });
  return entries.map((e) => ({ ...e, id: e.id.toString(), createdAt: e.createdAt.toISOString() }));
}
