import { identifierMatchKey, inferPrimaryType } from '@shared/identifiers';
import { maskIdentifier } from '@shared/mask-identifier';
import type { Db } from '../../db/client';
import { identifierHmac, type Keyring } from '../../lib/crypto';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

const TAG_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A short tag that tells apart identifiers whose masked forms look alike, and shows the same
 * person's requests alike: four characters of a keyed hash (the service's identifier pepper,
 * in its own domain) of the identifier as it is compared (emails without case). Keyed, so a
 * list of likely emails cannot be hashed to find whose tag it is.
 */
export function identifierTag(keyring: Keyring, identifier: string): string {
  const value = identifier.trim();
  const hash = identifierHmac(keyring, `display tag\n${identifierMatchKey(inferPrimaryType(value), value)}`);
  const bits = parseInt(hash.slice(0, 5), 16);
  return Array.from({ length: 4 }, (_, i) => TAG_ALPHABET[(bits >> (15 - 5 * i)) & 31]).join('');
}

/**
 * The dashboard's read models carry identifiers masked: whoever looks at a list sees
 * `pa***er@e***e.com` and its keyed tag, and the full identifier only through
 * `revealIdentifier`, which is audited.
 */
export function withMaskedIdentifier<T extends { identifier: string | null; hashed: boolean }>(
  request: T,
  keyring: Keyring,
): Omit<T, 'identifier'> & { maskedIdentifier: string | null; identifierTag: string | null } {
  const { identifier, ...rest } = request;
  // Retention leaves no identifier, or a placeholder that is no identifier at all.
  const shown = identifier !== null && !request.hashed;
  return {
    ...rest,
    maskedIdentifier: identifier === null ? null : shown ? maskIdentifier(identifier) : identifier,
    identifierTag: shown ? identifierTag(keyring, identifier) : null,
  };
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
