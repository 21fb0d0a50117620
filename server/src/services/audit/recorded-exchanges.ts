import zlib from 'node:zlib';
import { storableJson } from '../../db/storable';
import type { Prisma } from '../../generated/prisma/client';

/**
 * An audit entry's bulky details (a step's recorded exchanges, the HTTP calls and SQL statements
 * with the destination's answers, and around them what the step or the request's creation
 * recorded: states, evidence, identifiers, integrations) are most of what the audit log stores.
 * They are kept in `AuditLog.exchanges` as Brotli-compressed JSON: about half the size
 * PostgreSQL's own compression gave, and something at all for rows too small for PostgreSQL to
 * compress. `details` (jsonb) keeps only the keys that SQL statements read. The entry's digest
 * covers both (the `audit_log_guard` trigger hashes the details' text followed by these bytes),
 * and retention removes both. Readers see the details whole, as recorded, either way.
 *
 * What the bytes hold: a JSON object of the details' other keys; for entries of the column's
 * first version, a JSON array, the `exchanges` list alone; nothing for entries recorded before
 * the column, whose exchanges are inside `details`.
 */

/** Quality 5: within a few percent of the best Brotli does on these, at a fraction of a millisecond a step. */
const BROTLI_OPTIONS = {
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  },
};

/**
 * The keys of details that SQL statements read, kept in `details`: `workspaceId` (the audit log
 * screen's workspace filter) and `deletionRequestId` (pipeline/commands/delete-again.ts); for a
 * status poll that may fold into the entry before it, also its `result` (the fold compares it,
 * pipeline/store/finish.ts).
 */
const QUERIED_KEYS = new Set(['workspaceId', 'deletionRequestId']);
const FOLDABLE_QUERIED_KEYS = new Set([...QUERIED_KEYS, 'result']);
/** Shorter than this, the other keys' JSON compresses to about what jsonb stores, so it stays in `details`. */
const PACK_FROM_CHARS = 160;

/**
 * Details as stored: the keys SQL reads (null: none), and the others compressed (null: nothing to
 * compress, the details are stored as they are). Strings are made storable first, as for the rest.
 */
export function storedDetails(details: unknown, queried = QUERIED_KEYS): { details: unknown; packed: Buffer | null } {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return { details, packed: null };
  const kept: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) (queried.has(key) ? kept : rest)[key] = value;
  const text = storableJson(rest);
  if (text.length < PACK_FROM_CHARS) return { details, packed: null };
  return {
    details: Object.keys(kept).length > 0 ? kept : null,
    packed: zlib.brotliCompressSync(text, BROTLI_OPTIONS),
  };
}

/**
 * An audit row for a statement that reads its rows from JSON: its details as stored, and the
 * compressed rest as base64 text for the statement to `decode(…, 'base64')` into the column.
 */
export function withDetailsPacked<T extends { details?: unknown; foldRepeats?: boolean }>(row: T) {
  const { details, packed } = storedDetails(row.details, row.foldRepeats ? FOLDABLE_QUERIED_KEYS : QUERIED_KEYS);
  return { ...row, details, exchanges: packed?.toString('base64') ?? null };
}

/** jsonb's order of an object's keys (shorter first, then by their bytes): what a reader saw before. */
const byJsonbKeyOrder = ([a]: [string, unknown], [b]: [string, unknown]) =>
  a.length !== b.length ? a.length - b.length : Buffer.compare(Buffer.from(a), Buffer.from(b));

/** An entry's details as recorded: what was stored compressed back in them, in jsonb's key order. */
export function recordedDetails(details: Prisma.JsonValue | null, packed: Uint8Array | null): Prisma.JsonValue | null {
  if (packed === null) return details;
  let rest: Prisma.JsonObject;
  try {
    const unpacked = JSON.parse(zlib.brotliDecompressSync(packed).toString('utf8')) as Prisma.JsonValue;
    // An array: the exchanges list alone, as entries of the first version were stored.
    rest =
      unpacked !== null && typeof unpacked === 'object' && !Array.isArray(unpacked)
        ? unpacked
        : { exchanges: unpacked };
  } catch {
    // Unreadable bytes: the chain's verification names the entry; its other details still show.
    rest = { exchanges: 'the recorded details could not be read' };
  }
  const base = details !== null && typeof details === 'object' && !Array.isArray(details) ? details : {};
  return Object.fromEntries(Object.entries({ ...base, ...rest }).sort(byJsonbKeyOrder));
}
