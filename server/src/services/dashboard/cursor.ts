import { AppError } from '../../lib/errors';

/** Opaque keyset cursor on (createdAt, id): a deep page costs what the first one does. */
export function encodeKeysetCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeKeysetCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new AppError('BAD_REQUEST', 'Invalid cursor');
  return { createdAt, id };
}

/** Keyset cursor on (dueAt, id) for the nearest-deadline-first order; requests without a deadline come last. */
export function encodeDueCursor(dueAt: Date | null, id: string): string {
  return Buffer.from(`due|${dueAt ? dueAt.toISOString() : ''}|${id}`).toString('base64url');
}

export function decodeDueCursor(cursor: string): { dueAt: Date | null; id: string } {
  const [tag, at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const dueAt = at ? new Date(at) : null;
  if (tag !== 'due' || !id || (dueAt && Number.isNaN(dueAt.getTime()))) throw new AppError('BAD_REQUEST', 'Invalid cursor');
  return { dueAt, id };
}
