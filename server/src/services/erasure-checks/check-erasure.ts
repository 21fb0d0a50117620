import { hotQuery, type Db } from '../../db/client';
import { hashBytes, identifierHmac, type Keyring } from '../../lib/crypto';
import { identifierMatchKey, inferPrimaryType } from '@shared/identifiers';
import type { RequestStatus } from '@shared/statuses';
import type { ErasureCheckResult } from '@shared/schemas/erasure-check';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

interface LatestRow {
  /** Which checked identifier it answers (its position). */
  at: number;
  id: string;
  status: RequestStatus;
  createdAt: Date;
  completedAt: Date | null;
  erasedAt: Date | null;
  requestCount: number;
}

/**
 * Whether deletion requests exist for these subjects in the actor's organization (and its
 * token's workspaces), through any identifier of a request. Looked up by the keyed identifier hash, which retention's "hash"
 * keeps, so the answer survives it; the identifiers themselves are neither stored nor
 * logged. The audit entry records how many were checked and found, never which.
 */
export async function checkErasure(
  db: Db,
  keyring: Keyring,
  actor: Actor,
  identifiers: readonly string[],
): Promise<ErasureCheckResult[]> {
  const hashes = identifiers.map((identifier) => identifierHmac(keyring, identifier));
  // Each checked value by its own hash and, for an email, by its case-folded match key: a
  // person is found through any identifier of any request (the primary one or another).
  const wanted = identifiers.flatMap((identifier, at) => {
    const folded = identifierMatchKey(inferPrimaryType(identifier), identifier.trim());
    return [...new Set([hashes[at]!, identifierHmac(keyring, folded)])].map((hash) => ({ hash, at }));
  });
  const values: unknown[] = [actor.organizationId, hashBytes(wanted.map((w) => w.hash)), wanted.map((w) => w.at)];
  const workspaceFilter = actor.workspaceIds
    ? `AND d."workspaceId" = ANY($${values.push(actor.workspaceIds)}::text[])`
    : '';
  // The latest request per subject, with when one first succeeded and how many there are.
  const rows = await hotQuery<LatestRow>(
    db,
    `WITH wanted AS (SELECT * FROM unnest($2::bytea[], $3::int[]) AS w(hash, at)),
     matched AS (
       SELECT w.at, d.id, d.status, d."createdAt", d."completedAt"
         FROM wanted w JOIN "DeletionRequest" d ON d."organizationId" = $1 AND d."identifierHmac" = w.hash ${workspaceFilter}
       UNION
       SELECT w.at, d.id, d.status, d."createdAt", d."completedAt"
         FROM wanted w JOIN "RequestIdentifier" r ON r."matchHmac" = w.hash
         JOIN "DeletionRequest" d ON d.id = r."deletionRequestId" AND d."organizationId" = $1 ${workspaceFilter}
     )
     SELECT DISTINCT ON (at) at, id, status::text AS status, "createdAt", "completedAt",
            min("completedAt") FILTER (WHERE status = 'SUCCESS') OVER (PARTITION BY at) AS "erasedAt",
            (count(*) OVER (PARTITION BY at))::int AS "requestCount"
       FROM matched
      ORDER BY at, "createdAt" DESC, id DESC`,
    values,
  );
  const byHash = new Map(rows.map((row) => [hashes[row.at]!, row]));
  const results = hashes.map((hash): ErasureCheckResult => {
    const row = byHash.get(hash);
    if (!row)
      return {
        found: false,
        erased: false,
        deletionRequestId: null,
        status: null,
        requestedAt: null,
        completedAt: null,
        erasedAt: null,
        requestCount: 0,
      };
    return {
      found: true,
      erased: row.erasedAt !== null,
      deletionRequestId: row.id,
      status: row.status,
      requestedAt: row.createdAt.toISOString(),
      completedAt: row.completedAt?.toISOString() ?? null,
      erasedAt: row.erasedAt?.toISOString() ?? null,
      requestCount: row.requestCount,
    };
  });
  const found = results.filter((r) => r.found).length;
  await recordAudit(db, actor, {
    organizationId: actor.organizationId,
    action: 'erasure_check.performed',
    summary: `Erasure check of ${identifiers.length} identifier(s): ${found} with a deletion request`,
    details: { checked: identifiers.length, found, tokenId: actor.tokenId ?? null },
  });
  return results;
}
