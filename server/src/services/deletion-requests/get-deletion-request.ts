import type { AuditEntryDto } from '@shared/schemas/deletion-request';
import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import { readAuditTrail } from '../audit/audit-entry';
import { assertWorkspaceAllowed, type Actor } from '../auth/actor';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from './serialize';

/**
 * One deletion request with its integration requests, in the actor's organization (another
 * organization's is a 404); a token limited to other workspaces gets a 403.
 */
export async function getDeletionRequest(
  db: Db,
  actor: Actor,
  deletionRequestId: string,
  options: { fetchHashed?: boolean } = {},
) {
  const row = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: {
      ...deletionRequestSelect,
      integrationRequests: { select: integrationRequestSelect, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
    },
  });
  if (!row) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, row.workspaceId);
  return toDeletionRequestDto(row, options);
}

export interface AuditTrailPage {
  entries: AuditEntryDto[];
  /** The cursor of the next page, or null on the last one. */
  nextCursor: string | null;
}

/**
 * The request's audit trail, oldest first: every attempt, status check, cancel and
 * completion. Keyset-paginated on the entry id (`cursor` = the last id of the previous page).
 * Recorded exchanges never hold account secrets: they are redacted when recorded.
 */
export async function getAuditTrail(
  db: Db,
  actor: Actor,
  deletionRequestId: string,
  page: { limit?: number; cursor?: string } = {},
): Promise<AuditTrailPage> {
  const request = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { workspaceId: true },
  });
  if (!request) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, request.workspaceId);
  const limit = page.limit ?? 2000;
  const { rows, more } = await readAuditTrail(db, actor.organizationId, deletionRequestId, {
    limit,
    afterId: page.cursor ? BigInt(page.cursor) : undefined,
  });
  const entries = rows.map(({ deletionRequestId: _request, ...e }) => ({
    ...e,
    id: e.id.toString(),
    createdAt: e.createdAt.toISOString(),
    lastRepeatedAt: e.lastRepeatedAt?.toISOString() ?? null,
  }));
  return { entries, nextCursor: more ? entries.at(-1)!.id : null };
}
