import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from '../deletion-requests/serialize';
import { auditEntrySelect, toAuditEntryDto } from './audit-entry';
import { withMaskedIdentifier } from './masked-identifier';

const AUDIT_TRAIL_LIMIT = 500;

const detailSelect = {
  ...deletionRequestSelect,
  createdByTokenId: true,
  workspace: { select: { name: true } },
  createdBy: { select: { name: true, email: true } },
  integrationRequests: {
    select: { ...integrationRequestSelect, startedAt: true },
    orderBy: { createdAt: 'asc' },
  },
} satisfies Prisma.DeletionRequestSelect;

/**
 * One deletion request of the actor's organization with its integration requests and its
 * audit trail (oldest first, as a timeline reads). Another organization's is "not found".
 */
export async function getDeletionRequestDetail(db: Db, actor: Actor, deletionRequestId: string) {
  const row = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: detailSelect,
  });
  if (!row) throw notFound('Deletion request');
  const audit = await db.auditLog.findMany({
    where: { organizationId: actor.organizationId, deletionRequestId },
    orderBy: { id: 'asc' },
    take: AUDIT_TRAIL_LIMIT,
    select: auditEntrySelect,
  });
  const actorNames = await namesOf(db, audit.map((entry) => entry.actorId));
  const { workspace, createdBy, createdByTokenId, integrationRequests, ...request } = row;
  const extra = new Map(integrationRequests.map((ir) => [ir.id, ir]));
  const dto = toDeletionRequestDto({ ...request, integrationRequests });
  return {
    ...withMaskedIdentifier(dto),
    workspaceName: workspace.name,
    createdByName: createdBy ? createdBy.name || createdBy.email : null,
    createdWithToken: createdByTokenId !== null,
    integrationRequests: (dto.integrationRequests ?? []).map((ir) => ({
      ...ir,
      startedAt: extra.get(ir.id)?.startedAt?.toISOString() ?? null,
    })),
    auditTrail: audit.map((entry) => toAuditEntryDto(entry, actorNames)),
    auditTrailTruncated: audit.length === AUDIT_TRAIL_LIMIT,
  };
}

/** Display names of the users who acted, in one query. */
export async function namesOf(db: Db, userIds: (string | null)[]): Promise<Map<string, string>> {
  const ids = [...new Set(userIds.filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const users = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } });
  return new Map(users.map((u) => [u.id, u.name || u.email]));
}
