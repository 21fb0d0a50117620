import { maskIdentifier } from '@shared/mask-identifier';
import type { Db } from '../../db/client';
import { hashHex, type Keyring } from '../../lib/crypto';
import { notFound } from '../../lib/errors';
import { mayUseWorkspace, type Actor } from '../auth/actor';
import { withMaskedIdentifier } from '../dashboard/masked-identifier';
import { matchingRequests, searchHashes } from './matching-requests';

/** More than a person's page shows at once (it says so). */
const PERSON_REQUESTS_LIMIT = 200;

/**
 * Every request of the person one request is for, across the organization's workspaces (a
 * token's own only): those that share any of its identifiers, as each type's normaliser
 * compares them (emails without case). Identifiers masked; a request retention purged matches only itself.
 */
export async function getPersonRequests(db: Db, keyring: Keyring, actor: Actor, deletionRequestId: string) {
  const anchor = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: {
      id: true,
      workspaceId: true,
      identifier: true,
      identifierHmac: true,
      hashed: true,
      identifiers: {
        select: { type: true, value: true, matchHmac: true, primary: true },
        orderBy: [{ primary: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
      },
    },
  });
  if (!anchor || !mayUseWorkspace(actor, anchor.workspaceId)) throw notFound('Deletion request');
  // Its own hash finds the request itself even once purged (then the hash of "purged:<id>", like its identifiers').
  const hashes = new Set([anchor.identifierHmac, ...anchor.identifiers.map((i) => i.matchHmac)].map(hashHex));
  // A request stored before typed identifiers has only its own: matched as a search for it would be.
  if (anchor.identifier && !anchor.hashed)
    for (const hash of searchHashes(keyring, anchor.identifier)) hashes.add(hash);
  const rows = await matchingRequests(db, actor, [...hashes], { openOnly: false, limit: PERSON_REQUESTS_LIMIT + 1 });
  const requests = rows.slice(0, PERSON_REQUESTS_LIMIT);
  return {
    deletionRequestId: anchor.id,
    identifiers: anchor.identifiers.map((identifier) => ({
      type: identifier.type,
      maskedValue: identifier.value === null || anchor.hashed ? null : maskIdentifier(identifier.value),
      primary: identifier.primary,
    })),
    requests: requests.map((row) => ({
      ...withMaskedIdentifier(row, keyring),
      createdAt: row.createdAt.toISOString(),
      receivedAt: (row.receivedAt ?? row.createdAt).toISOString(),
      completedAt: row.completedAt?.toISOString() ?? null,
      dueAt: row.dueAt?.toISOString() ?? null,
    })),
    truncated: rows.length > PERSON_REQUESTS_LIMIT,
  };
}
