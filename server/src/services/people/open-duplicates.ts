import { inferPrimaryType, normaliseIdentifier, type RequestIdentifierInput } from '@shared/identifiers';
import type { Db } from '../../db/client';
import { identifierHmac, type Keyring } from '../../lib/crypto';
import type { Actor } from '../auth/actor';
import { withMaskedIdentifier } from '../dashboard/masked-identifier';
import { identifierHashes } from '../identities/identifier-values';
import { matchingRequests, type MatchingRequestRow } from './matching-requests';

/** How many open requests of one person a duplicate warning names. */
const DUPLICATES_SHOWN = 10;

/**
 * The open requests (not SUCCESS or CANCELED) of the actor's organization that share any of
 * these identifiers, newest first: what creating one for this person would duplicate. A value
 * its type refuses matches nothing here (the create itself answers that 400).
 */
export async function findOpenDuplicates(
  deps: { prisma: Db; keyring: Keyring },
  actor: Actor,
  input: { identifier: string; identifierType?: string; identifiers?: RequestIdentifierInput[] },
) {
  const given = [
    { type: input.identifierType ?? inferPrimaryType(input.identifier), value: input.identifier },
    ...(input.identifiers ?? []),
  ];
  // As the create compares them: each identifier's match key, and the primary one as given.
  const hashes = given.flatMap(({ type, value }) => {
    const normalised = type === null ? { ok: true as const, value: value.trim() } : normaliseIdentifier(type, value);
    return normalised.ok ? [identifierHashes(deps.keyring, type, normalised.value).matchHmac] : [];
  });
  hashes.push(identifierHmac(deps.keyring, input.identifier));
  const rows = await matchingRequests(deps.prisma, actor, hashes, { openOnly: true, limit: DUPLICATES_SHOWN });
  return rows.map(toOpenRequestDto);
}

const toOpenRequestDto = (row: MatchingRequestRow) => {
  const { id, workspaceId, workspaceName, status, maskedIdentifier, createdAt } = withMaskedIdentifier(row);
  return { id, workspaceId, workspaceName, status, maskedIdentifier, createdAt: createdAt.toISOString() };
};
