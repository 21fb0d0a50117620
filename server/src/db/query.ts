import type pg from 'pg';
import { hotQuery, prepared, type DbOrTx } from './client';

/** One SQL round trip: the engine's hot statements run the same on a pg client or a Prisma transaction. */
export type Query = <R = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<R[]>;

export const pgQuery =
  (client: pg.PoolClient | pg.Pool): Query =>
  async <R>(text: string, values: unknown[] = []) =>
    (await client.query(prepared(text, values))).rows as R[];

/** The same on a Prisma client (its pool, as a prepared statement) or inside a Prisma transaction. */
export const dbQuery =
  (db: DbOrTx): Query =>
  <R>(text: string, values: unknown[] = []) =>
    hotQuery<R>(db, text, values);

/**
 * Timestamps are stored as UTC without a time zone (as Prisma writes them): compare and
 * write them in UTC whatever the database session's time zone is.
 */
export const NOW_UTC = `(now() AT TIME ZONE 'UTC')`;
export const utc = (param: string) => `(${param}::timestamptz AT TIME ZONE 'UTC')`;
