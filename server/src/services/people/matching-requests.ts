import { identifierMatchKey, inferPrimaryType, normaliseIdentifier } from '@shared/identifiers';
import { UNFULFILLED_STATUSES } from '@shared/status-values';
import type { RequestStatus } from '@shared/statuses';
import { hotQuery, type DbOrTx } from '../../db/client';
import { hashBytes, identifierHmac, type Keyring } from '../../lib/crypto';
import type { Actor } from '../auth/actor';

/**
 * The keyed hashes an identifier typed into a search is looked for by, its type unknown: as
 * written (trimmed), an email's match key (without case), a phone number's E.164 form.
 */
export function searchHashes(keyring: Keyring, typed: string): string[] {
  const value = typed.trim();
  const keys = new Set([value]);
  if (inferPrimaryType(value) === 'email') keys.add(identifierMatchKey('email', value));
  const phone = normaliseIdentifier('phone', value);
  if (phone.ok) keys.add(phone.value);
  return [...keys].map((key) => identifierHmac(keyring, key));
}

// A request matches through any of its identifiers (`matchHmac`, indexed, kept by retention's
// "hash") or, for requests stored before they had typed identifiers, its primary identifier's
// own hash (the (organization, identifierHmac) index).
const MATCHED = `SELECT r."deletionRequestId" AS id FROM "RequestIdentifier" r WHERE r."matchHmac" = ANY($2::bytea[])
   UNION
   SELECT id FROM "DeletionRequest" WHERE "organizationId" = $1 AND "identifierHmac" = ANY($2::bytea[])`;

/** $1: the organization, $2: the hashes as bytes (its plan is read in matching-indexes.test.ts). */
export const MATCHING_REQUEST_IDS = `SELECT d.id FROM (${MATCHED}) m JOIN "DeletionRequest" d ON d.id = m.id WHERE d."organizationId" = $1`;

/** The ids of the organization's requests that carry any of these keyed hashes. */
export async function requestIdsMatching(db: DbOrTx, organizationId: string, hashes: string[]): Promise<string[]> {
  if (hashes.length === 0) return [];
  const rows = await hotQuery<{ id: string }>(db, MATCHING_REQUEST_IDS, [organizationId, hashBytes(hashes)]);
  return rows.map((row) => row.id);
}

export interface MatchingRequestRow {
  id: string;
  workspaceId: string;
  workspaceName: string;
  status: RequestStatus;
  identifier: string | null;
  hashed: boolean;
  createdAt: Date;
  receivedAt: Date | null;
  completedAt: Date | null;
  dueAt: Date | null;
  cancelReason: string | null;
}

/**
 * The actor's requests (its organization, its token's workspaces) that carry any of these keyed
 * hashes, newest first; `openOnly`: those still owing the subject an answer.
 */
export async function matchingRequests(
  db: DbOrTx,
  actor: Actor,
  hashes: string[],
  options: { openOnly: boolean; limit: number },
): Promise<MatchingRequestRow[]> {
  if (hashes.length === 0) return [];
  const values: unknown[] = [actor.organizationId, hashBytes(hashes), options.limit];
  const conditions = ['d."organizationId" = $1'];
  if (options.openOnly) conditions.push(`d.status::text = ANY($${values.push(UNFULFILLED_STATUSES)}::text[])`);
  if (actor.workspaceIds) conditions.push(`d."workspaceId" = ANY($${values.push(actor.workspaceIds)}::text[])`);
  return hotQuery<MatchingRequestRow>(
    db,
    `SELECT d.id, d."workspaceId", w.name AS "workspaceName", d.status::text AS status, d.identifier, d.hashed,
            d."createdAt", d."receivedAt", d."completedAt", d."dueAt", d."cancelReason"
       FROM (${MATCHED}) m
       JOIN "DeletionRequest" d ON d.id = m.id
       JOIN "Workspace" w ON w.id = d."workspaceId"
      WHERE ${conditions.join(' AND ')}
      ORDER BY d."createdAt" DESC, d.id DESC
      LIMIT $3`,
    values,
  );
}
