import { hotQuery, type Db } from '../../db/client';
import { identifierHmac, type Keyring } from '../../lib/crypto';
import type { RequestStatus } from '@shared/statuses';
import type { ErasureCheckResult } from '@shared/schemas/erasure-check';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

interface LatestRow {
  identifierHmac: string;
  id: string;
  status: RequestStatus;
  createdAt: Date;
  completedAt: Date | null;
  erasedAt: Date | null;
  requestCount: number;
}

/**
 * Whether deletion requests exist for these subjects in the actor's organization (and its
 * token's workspaces). Looked up by the keyed identifier hash, which retention's "hash"
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
  const values: unknown[] = [actor.organizationId, [...new Set(hashes)]];
  const workspaceFilter = actor.workspaceIds
    ? `AND "workspaceId" = ANY($${values.push(actor.workspaceIds)}::text[])`
    : '';
  // The latest request per subject, with when one first succeeded and how many there are.
  const rows = await hotQuery<LatestRow>(
    db,
    `SELECT DISTINCT ON ("identifierHmac") "identifierHmac", id, status::text AS status, "createdAt", "completedAt",
            min("completedAt") FILTER (WHERE status = 'SUCCESS') OVER (PARTITION BY "identifierHmac") AS "erasedAt",
            (count(*) OVER (PARTITION BY "identifierHmac"))::int AS "requestCount"
       FROM "DeletionRequest"
      WHERE "organizationId" = $1 AND "identifierHmac" = ANY($2::text[]) ${workspaceFilter}
      ORDER BY "identifierHmac", "createdAt" DESC, id DESC`,
    values,
  );
  const byHash = new Map(rows.map((row) => [row.identifierHmac, row]));
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
