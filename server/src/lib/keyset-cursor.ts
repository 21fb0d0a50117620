import { AppError } from './errors';

/** What `Date.prototype.toISOString` writes for years 0000-9999, the only instants a cursor carries. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Our ids (`lib/ids.ts`): a short prefix and lower-case base32. */
const ROW_ID = /^[a-z]{2,4}_[0-9a-z]{1,40}$/;

/** Opaque keyset cursor on (createdAt, id): a deep page costs what the first one does. */
export function encodeKeysetCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

/**
 * Reads a cursor this service wrote, and refuses anything else with 400 before it can reach
 * the database: a forged one may carry a NUL byte, a year PostgreSQL cannot store
 * (`+275760-…`) or anything else a client chooses.
 */
export function decodeKeysetCursor(cursor: string): { createdAt: Date; id: string } {
  const parts = /^[A-Za-z0-9_-]{1,200}$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8').split('|')
    : [];
  const [at = '', id = ''] = parts;
  const createdAt = new Date(at);
  if (
    parts.length !== 2 ||
    !ISO_INSTANT.test(at) ||
    Number.isNaN(createdAt.getTime()) ||
    createdAt.toISOString() !== at ||
    !ROW_ID.test(id)
  ) {
    throw new AppError('BAD_REQUEST', 'Invalid cursor');
  }
  return { createdAt, id };
}

/**
 * Keyset cursor on (dueAt, id) for the nearest-deadline-first order, in one of its two parts:
 * open requests first, then finished ones (`finished`); requests without a deadline come last in each.
 */
export function encodeDueCursor(dueAt: Date | null, id: string, finished = false): string {
  return Buffer.from(`${finished ? DUE_FINISHED : DUE_OPEN}|${dueAt ? dueAt.toISOString() : ''}|${id}`).toString(
    'base64url',
  );
}

const DUE_OPEN = 'due';
const DUE_FINISHED = 'due-finished';

/** Reads a due-date cursor this service wrote (as strictly as `decodeKeysetCursor`), 400 otherwise. */
export function decodeDueCursor(cursor: string): { dueAt: Date | null; id: string; finished: boolean } {
  const parts = /^[A-Za-z0-9_-]{1,200}$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8').split('|')
    : [];
  const [tag = '', at = '', id = ''] = parts;
  const dueAt = at ? new Date(at) : null;
  const validInstant = !at || (ISO_INSTANT.test(at) && !Number.isNaN(dueAt!.getTime()) && dueAt!.toISOString() === at);
  if (parts.length !== 3 || (tag !== DUE_OPEN && tag !== DUE_FINISHED) || !validInstant || !ROW_ID.test(id))
    throw new AppError('BAD_REQUEST', 'Invalid cursor');
  return { dueAt, id, finished: tag === DUE_FINISHED };
}

/** The largest value of a PostgreSQL bigint, which audit log ids are. */
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** The audit log's cursor: the last entry's id, a positive bigint. */
export function decodeBigintCursor(cursor: string): bigint {
  const value = /^\d{1,19}$/.test(cursor) ? BigInt(cursor) : -1n;
  if (value < 0n || value > MAX_BIGINT) throw new AppError('BAD_REQUEST', 'Invalid cursor');
  return value;
}
