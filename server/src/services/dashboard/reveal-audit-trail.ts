import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../auth/actor';
import { readAuditTrail } from '../audit/audit-entry';
import { recordAudit } from '../audit/record-audit';
import { AUDIT_TRAIL_LIMIT } from './get-deletion-request-detail';

export interface RevealedAuditEntry {
  id: string;
  summary: string;
  details: Prisma.JsonValue;
}

/**
 * The summaries and recorded exchanges of a request's audit trail as they were recorded, with
 * the identifiers that the detail masks in them (the same first entries the detail shows). The
 * audit entry saying who saw them is written first, so no one sees them unrecorded.
 */
export async function revealAuditTrail(
  db: Db,
  actor: Actor,
  deletionRequestId: string,
): Promise<{ entries: RevealedAuditEntry[] }> {
  const request = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { id: true, workspaceId: true },
  });
  if (!request) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, request.workspaceId);
  await recordAudit(db, actor, {
    organizationId: actor.organizationId,
    deletionRequestId: request.id,
    action: 'request.exchanges_revealed',
    summary: 'Recorded exchanges shown unmasked in the dashboard (with the identifiers they contain)',
  });
  const { rows } = await readAuditTrail(db, actor.organizationId, request.id, { limit: AUDIT_TRAIL_LIMIT });
  return {
    entries: rows.map((row) => ({
      id: row.id.toString(),
      summary: row.summary,
      details: (row.details ?? null) as Prisma.JsonValue,
    })),
  };
}
