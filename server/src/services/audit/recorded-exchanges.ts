import zlib from 'node:zlib';
import { storableJson } from '../../db/storable';
import type { Prisma } from '../../generated/prisma/client';

/**
 * An audit entry's recorded exchanges (the HTTP calls and SQL statements of a step, with the
 * destination's answers) are most of what the audit log stores. They are kept apart from the
 * entry's other details, in `AuditLog.exchanges`, as Brotli-compressed JSON: about half the
 * size PostgreSQL's own compression of the whole `details` gave, and nothing for a row too small
 * for PostgreSQL to compress at all. The entry's digest covers both (the `audit_log_guard`
 * trigger hashes the details' text followed by these bytes), and retention removes both.
 * Entries recorded before keep their exchanges inside `details`; readers see the same either way.
 */

/** Quality 5: within a few percent of the best Brotli does on these, at a fraction of a millisecond a step. */
const BROTLI_OPTIONS = {
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  },
};

/**
 * Details as stored: without a non-empty `exchanges` list, which comes back compressed (null:
 * nothing to store apart). Strings are made storable first, as for the rest of the details.
 */
export function storedExchanges(details: unknown): { details: unknown; exchanges: Buffer | null } {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return { details, exchanges: null };
  const { exchanges, ...rest } = details as Record<string, unknown>;
  if (!Array.isArray(exchanges) || exchanges.length === 0) return { details, exchanges: null };
  return { details: rest, exchanges: zlib.brotliCompressSync(storableJson(exchanges), BROTLI_OPTIONS) };
}

/**
 * An audit row for a statement that reads its rows from JSON: its details as stored, and its
 * exchanges apart as base64 text for the statement to `decode(…, 'base64')` into the column.
 */
export function withExchangesApart<T extends { details?: unknown }>(row: T) {
  const { details, exchanges } = storedExchanges(row.details);
  return { ...row, details, exchanges: exchanges?.toString('base64') ?? null };
}

/** jsonb's order of an object's keys (shorter first, then by their bytes): what a reader saw before. */
const byJsonbKeyOrder = ([a]: [string, unknown], [b]: [string, unknown]) =>
  a.length !== b.length ? a.length - b.length : Buffer.compare(Buffer.from(a), Buffer.from(b));

/** An entry's details as recorded: its stored exchanges back in them. */
export function recordedDetails(
  details: Prisma.JsonValue | null,
  exchanges: Uint8Array | null,
): Prisma.JsonValue | null {
  if (exchanges === null) return details;
  let list: Prisma.JsonValue;
  try {
    list = JSON.parse(zlib.brotliDecompressSync(exchanges).toString('utf8')) as Prisma.JsonValue;
  } catch {
    // Unreadable bytes: the chain's verification names the entry; its other details still show.
    list = 'the recorded exchanges could not be read';
  }
  const base = details !== null && typeof details === 'object' && !Array.isArray(details) ? details : {};
  return Object.fromEntries(Object.entries({ ...base, exchanges: list }).sort(byJsonbKeyOrder));
}
