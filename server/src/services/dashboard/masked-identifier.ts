import { maskIdentifier } from '@shared/mask-identifier';
import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

/**
 * The dashboard's read models carry identifiers masked: whoever looks at a list sees
 * `j***@example.com`, and the full identifier only through `revealIdentifier`, which is audited.
 */
export function withMaskedIdentifier<T extends { identifier: string | null; hashed: boolean }>(
  request: T,
): Omit<T, 'identifier'> & { maskedIdentifier: string | null } {
  const { identifier, ...rest } = request;
  // Retention leaves no identifier, or a placeholder that is no identifier at all.
  const maskedIdentifier = identifier === null ? null : request.hashed ? identifier : maskIdentifier(identifier);
  return { ...rest, maskedIdentifier };
}

/** One request's full identifier for a member of its organization, with an audit entry saying who saw it. */
export async function revealIdentifier(
  db: Db,
  actor: Actor,
  deletionRequestId: string,
): Promise<{ identifier: string | null }> {
  const request = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { id: true, identifier: true, hashed: true },
  });
  if (!request) throw notFound('Deletion request');
  const identifier = request.hashed ? null : request.identifier;
  if (identifier !== null) {
    await recordAudit(db, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: request.id,
      action: 'request.identifier_revealed',
      summary: 'Identifier revealed in the dashboard',
    });
  }
  return { identifier };
}
