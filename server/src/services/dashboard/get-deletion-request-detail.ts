import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import type { Keyring } from '../../lib/crypto';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from '../deletion-requests/serialize';
import { completionProfiles, projectRisk } from '../deadlines/at-risk';
import { namesOf, readAuditTrail, toAuditEntryDto } from '../audit/audit-entry';
import { maskAuditEntry, requestIdentifierMasker } from '../audit/mask-exchanges';
import { withMaskedIdentifier } from './masked-identifier';

export const AUDIT_TRAIL_LIMIT = 500;

const detailSelect = {
  ...deletionRequestSelect,
  createdByTokenId: true,
  dueExtensionReason: true,
  workspace: { select: { name: true } },
  createdBy: { select: { name: true, email: true } },
  integrationRequests: {
    select: {
      ...integrationRequestSelect,
      startedAt: true,
      priorAttempts: true,
      configTakenAt: true,
      reverifiedAt: true,
      reappearedAt: true,
    },
    orderBy: { createdAt: 'asc' },
  },
} satisfies Prisma.DeletionRequestSelect;

/**
 * One deletion request of the actor's organization with its integration requests and its
 * audit trail (oldest first, as a timeline reads), every identifier of the request masked in
 * it. Another organization's is "not found".
 */
export async function getDeletionRequestDetail(
  db: Db,
  keyring: Keyring,
  actor: Actor,
  deletionRequestId: string,
  now = new Date(),
) {
  const row = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: detailSelect,
  });
  if (!row) throw notFound('Deletion request');
  const { rows: audit, more } = await readAuditTrail(db, actor.organizationId, deletionRequestId, {
    limit: AUDIT_TRAIL_LIMIT,
  });
  const [actorNames, profiles, mask] = await Promise.all([
    namesOf(
      db,
      audit.map((entry) => entry.actorId),
    ),
    completionProfiles(db, actor.organizationId, now),
    requestIdentifierMasker(db, row.id),
  ]);
  const { workspace, createdBy, createdByTokenId, dueExtensionReason, integrationRequests, ...request } = row;
  const risk = projectRisk(
    { dueAt: row.dueAt, integrationRequests: integrationRequests.map((ir) => ({ ...ir, name: ir.integrationName })) },
    profiles,
    now,
  );
  const extra = new Map(integrationRequests.map((ir) => [ir.id, ir]));
  const dto = toDeletionRequestDto({ ...request, integrationRequests });
  return {
    ...withMaskedIdentifier(dto, keyring),
    workspaceName: workspace.name,
    createdByName: createdBy ? createdBy.name || createdBy.email : null,
    createdWithToken: createdByTokenId !== null,
    dueExtensionReason,
    atRisk: risk.atRisk,
    riskReasons: risk.reasons,
    integrationRequests: (dto.integrationRequests ?? []).map((ir) => ({
      ...ir,
      startedAt: extra.get(ir.id)?.startedAt?.toISOString() ?? null,
      /** Attempts across every retry (the public `attempts` counts the current run only). */
      totalAttempts: ir.attempts + (extra.get(ir.id)?.priorAttempts ?? 0),
      /** When a retry with the current configuration took the integration's configuration; null: as submitted. */
      configTakenAt: extra.get(ir.id)?.configTakenAt?.toISOString() ?? null,
      reverifiedAt: extra.get(ir.id)?.reverifiedAt?.toISOString() ?? null,
      reappearedAt: extra.get(ir.id)?.reappearedAt?.toISOString() ?? null,
    })),
    // Recorded exchanges repeat what a destination was sent: shown unmasked only through `revealAuditTrail`.
    auditTrail: audit.map((entry) => maskAuditEntry(toAuditEntryDto(entry, actorNames), mask)),
    auditTrailTruncated: more,
  };
}
