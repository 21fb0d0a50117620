import { hashBytes } from '../../lib/crypto';
import { AUDIT_COLUMNS, NOW_UTC, type Query } from './sql';
import type { NewRequestIdentifier } from './fan-out';

/**
 * A request's identifier values with their types (the primary one first): a step sends those
 * of the type it consumes and blanks all of them out of what the destination says.
 */
export function requestIdentifierValues(
  query: Query,
  deletionRequestId: string,
): Promise<{ id: string; type: string | null; value: string }[]> {
  return query<{ id: string; type: string | null; value: string }>(
    `SELECT id, type, value FROM "RequestIdentifier"
      WHERE "deletionRequestId" = $1 AND value IS NOT NULL
      ORDER BY "primary" DESC, "createdAt", id`,
    [deletionRequestId],
  );
}

/** What one integration request sends its destination. */
export interface Subject {
  /** The values it is sent, in order (a step's jobs at the destination are kept by position), each with its call key. */
  values: { value: string; callKey: string }[];
  /** Every identifier of the request: blanked out of what the destination says. */
  redact: string[];
}

/**
 * The values an integration request sends its destination: the primary identifier when its
 * integration consumes no type (as before typed identifiers), else every value of that type,
 * each under its own call key (the integration request's id and the identifier's: a destination
 * that keeps answers by Idempotency-Key must not answer the second email with the first one's).
 * A deletion step, a cancel and a re-verification all reach the same values this way. `values`
 * is empty when the request has none of the type.
 */
export async function integrationSubject(
  query: Query,
  ir: { id: string; deletionRequestId: string; consumesType: string | null; identifier: string },
): Promise<Subject> {
  if (ir.consumesType === null) return { values: [{ value: ir.identifier, callKey: ir.id }], redact: [ir.identifier] };
  const every = await requestIdentifierValues(query, ir.deletionRequestId);
  return {
    values: every
      .filter((identifier) => identifier.type === ir.consumesType)
      .map((identifier) => ({ value: identifier.value, callKey: `${ir.id}:${identifier.id}` })),
    redact: every.map((identifier) => identifier.value),
  };
}

export interface LookupLease {
  organizationId: string;
  workspaceId: string;
}

/**
 * Leases the running of a request's identity lookups (they run once per request): null when
 * they already ran, 'busy' while another step holds the lease.
 */
export async function leaseIdentityLookups(
  query: Query,
  deletionRequestId: string,
  leaseMs: number,
): Promise<LookupLease | 'busy' | null> {
  const [leased] = await query<LookupLease>(
    `UPDATE "DeletionRequest" SET "lookupLockedUntil" = ${NOW_UTC} + make_interval(secs => $2)
      WHERE id = $1 AND "lookupsPending" AND ("lookupLockedUntil" IS NULL OR "lookupLockedUntil" < ${NOW_UTC})
      RETURNING "organizationId", "workspaceId"`,
    [deletionRequestId, leaseMs / 1000],
  );
  if (leased) return leased;
  const [row] = await query<{ lookupsPending: boolean }>(
    `SELECT "lookupsPending" FROM "DeletionRequest" WHERE id = $1`,
    [deletionRequestId],
  );
  return row?.lookupsPending ? 'busy' : null;
}

/** Gives the lease back after a lookup failed, so the next step tries again at once. */
export async function releaseIdentityLookups(query: Query, deletionRequestId: string): Promise<void> {
  await query(`UPDATE "DeletionRequest" SET "lookupLockedUntil" = NULL WHERE id = $1`, [deletionRequestId]);
}

/** One identifier a lookup found, with the audit entry saying so (type, source, never the value). */
export interface FoundIdentifierRow extends NewRequestIdentifier {
  lookupId: string;
}

/**
 * Records what the lookups found and that they ran, in one statement: the identifiers (one
 * already known is kept as it was), an audit entry for each, and the request no longer pending.
 */
export async function recordFoundIdentifiers(
  query: Query,
  request: { id: string; organizationId: string },
  found: FoundIdentifierRow[],
  summary: string,
): Promise<number> {
  const [result] = await query<{ added: number }>(
    `WITH added AS (
       INSERT INTO "RequestIdentifier" (id, "deletionRequestId", type, value, "valueHmac", "matchHmac", "primary", source, "createdAt")
       -- A millisecond apart, in the order the lookups found them (the detail lists them so).
       SELECT v.id, $1, v.type, v.value, v.value_hmac, v.match_hmac, false, v.source, ${NOW_UTC} + make_interval(secs => v.ord / 1000.0)
         FROM unnest($3::text[], $4::text[], $5::text[], $6::bytea[], $7::bytea[], $8::text[]) WITH ORDINALITY
              AS v(id, type, value, value_hmac, match_hmac, source, ord)
       ON CONFLICT ("deletionRequestId", "valueHmac") DO NOTHING
       RETURNING type, source
     ), entries AS (
       INSERT INTO "AuditLog" (${AUDIT_COLUMNS})
       SELECT $2, $1, NULL, 'system', NULL, 'identity.found', NULL,
              'Identifier of type ' || added.type || ' found by the lookup "' || added.source || '"',
              jsonb_build_object('type', added.type, 'source', added.source), ${NOW_UTC}
         FROM added
       UNION ALL
       SELECT $2, $1, NULL, 'system', NULL, 'identity.lookups_completed', NULL, $9, NULL, ${NOW_UTC}
       RETURNING 1
     ), done AS (
       UPDATE "DeletionRequest" SET "lookupsPending" = false, "lookupLockedUntil" = NULL WHERE id = $1 RETURNING 1
     )
     SELECT (SELECT count(*) FROM added)::int AS added, (SELECT count(*) FROM entries)::int AS entries, (SELECT count(*) FROM done)::int AS done`,
    [
      request.id,
      request.organizationId,
      found.map((f) => f.id),
      found.map((f) => f.type),
      found.map((f) => f.value),
      hashBytes(found.map((f) => f.valueHmac)),
      hashBytes(found.map((f) => f.matchHmac)),
      found.map((f) => f.source),
      summary,
    ],
  );
  return result?.added ?? 0;
}

/** Records a lookup that gave up, on the request's trail (the steps record their own outcome). */
export async function recordLookupFailure(
  query: Query,
  request: { id: string; organizationId: string },
  summary: string,
): Promise<void> {
  await query(
    `INSERT INTO "AuditLog" (${AUDIT_COLUMNS}) VALUES ($2, $1, NULL, 'system', NULL, 'identity.lookup_failed', 'FAILED', $3, NULL, ${NOW_UTC})`,
    [request.id, request.organizationId, summary],
  );
}
