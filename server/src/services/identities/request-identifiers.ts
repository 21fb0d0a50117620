import { maskIdentifier } from '@shared/mask-identifier';
import type { Db } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { notFound } from '../../lib/errors';
import { mayUseWorkspace, type Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';
import { identifierTag } from '../dashboard/masked-identifier';

export interface MaskedRequestIdentifier {
  id: string;
  type: string | null;
  /** Masked as the dashboard masks the primary identifier; null once retention removed it. */
  maskedValue: string | null;
  /** The keyed tag the lists show beside a masked identifier; null with the value. */
  tag: string | null;
  primary: boolean;
  /** "request", or the identity lookup that found it. */
  source: string;
  createdAt: string;
}

async function findRequest(db: Db, actor: Actor, deletionRequestId: string) {
  const request = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { id: true, workspaceId: true, hashed: true },
  });
  if (!request || !mayUseWorkspace(actor, request.workspaceId)) throw notFound('Deletion request');
  return request;
}

/** A request's identifiers, masked, with where each came from (given with the request, or which lookup found it). */
export async function listRequestIdentifiers(
  db: Db,
  keyring: Keyring,
  actor: Actor,
  deletionRequestId: string,
): Promise<MaskedRequestIdentifier[]> {
  const request = await findRequest(db, actor, deletionRequestId);
  const rows = await db.requestIdentifier.findMany({
    where: { deletionRequestId: request.id },
    orderBy: [{ primary: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    maskedValue: row.value === null || request.hashed ? null : maskIdentifier(row.value),
    tag: row.value === null || request.hashed ? null : identifierTag(keyring, row.value),
    primary: row.primary,
    source: row.source,
    createdAt: row.createdAt.toISOString(),
  }));
}

/** One identifier of a request in full, with an audit entry saying who saw which (by type and source, not value). */
export async function revealRequestIdentifier(
  db: Db,
  actor: Actor,
  input: { deletionRequestId: string; identifierId: string },
): Promise<{ value: string | null }> {
  const request = await findRequest(db, actor, input.deletionRequestId);
  const row = await db.requestIdentifier.findFirst({
    where: { id: input.identifierId, deletionRequestId: request.id },
  });
  if (!row) throw notFound('Identifier');
  const value = request.hashed ? null : row.value;
  if (value !== null)
    await recordAudit(db, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: request.id,
      action: 'request.identifier_revealed',
      summary: `Identifier revealed in the dashboard (${row.type ?? 'primary'}, ${row.source === 'request' ? 'given with the request' : `found by "${row.source}"`})`,
      details: { identifierId: row.id, type: row.type, source: row.source },
    });
  return { value };
}
