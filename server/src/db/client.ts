import { createHash } from 'node:crypto';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { createPool } from './connections';
import { ServicePrismaPg } from './pg-adapter';

export type Db = PrismaClient;
/** A Prisma transaction client: services take `Db | Tx` so they compose into transactions. */
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  prisma: PrismaClient;
  /** The raw pool the Prisma adapter runs on, for the few hand-written queries and the job queue. */
  pool: pg.Pool;
  close(): Promise<void>;
}

const TIMESTAMP_OID = 1114;
/** Prisma stores DateTime as UTC in `timestamp(3)`; read it back the same way, whatever the process's time zone. */
const readUtcTimestamp = (value: string) => new Date(`${value.replace(' ', 'T')}Z`);
const poolTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID && format !== 'binary'
      ? readUtcTimestamp
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

const pools = new WeakMap<object, pg.Pool>();

/** Past this many distinct statement texts, new ones run unnamed (a guard against unbounded variety). */
const MAX_PREPARED_TEXTS = 500;
const statementNames = new Map<string, string>();
let prepareStatements = true;

/** DB_PREPARED_STATEMENTS: off for poolers that cannot keep a session's prepared statements (PgBouncer before 1.21 in transaction mode). */
export function usePreparedStatements(enabled: boolean): void {
  prepareStatements = enabled;
}

/**
 * A hot statement as a named (server-side prepared) query: each connection parses and
 * plans its text once and then only binds values, which is most of PostgreSQL's work for
 * the short statements of the API's hot path and the engine. Texts are the statements'
 * own, never built from input, so their number stays small.
 */
export function prepared(text: string, values: unknown[] = []): pg.QueryConfig {
  if (!prepareStatements) return { text, values };
  let name = statementNames.get(text);
  if (!name) {
    if (statementNames.size >= MAX_PREPARED_TEXTS) return { text, values };
    name = `dds_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/**
 * Runs one parameterised statement ($1, $2 ...) straight on the pool under `db` when there
 * is one, skipping the ORM's per-query work; the few statements on the public API's hot
 * path use it. Inside a transaction (or on a client made elsewhere) it goes through Prisma.
 */
/** The pg pool under a Prisma client made by `connectDatabase`. */
export const poolOf = (db: DbOrTx): pg.Pool | undefined => pools.get(db);

const closers = new WeakMap<pg.Pool, (() => Promise<void>)[]>();

/** Runs `close` (a listener's end, say) when the database under `pool` is closed. */
export function onDatabaseClose(pool: pg.Pool, close: () => Promise<void>): void {
  closers.set(pool, [...(closers.get(pool) ?? []), close]);
}

/**
 * The columns a Prisma `select` of scalar fields names, quoted, for a hot statement that returns the
 * same rows (enum columns come back as their labels, as Prisma gives them).
 */
export const selectedColumns = (select: Record<string, true>): string =>
  Object.keys(select)
    .map((column) => `"${column}"`)
    .join(', ');

export async function hotQuery<R>(db: DbOrTx, text: string, values: unknown[]): Promise<R[]> {
  const pool = pools.get(db);
  if (pool) return (await pool.query(prepared(text, values))).rows as R[];
  return (db as Db).$queryRawUnsafe<R[]>(text, ...values);
}

const IDLE_CONNECTION_MS = 60_000;

export function connectDatabase(url: string, poolSize: number): Database {
  // Prisma's adapter sets its own type parsers per query; these apply to hotQuery only.
  // Every connection keeps an error listener (a restart or failover drops them all); a new
  // connection that cannot be made within 10 s fails the query instead of waiting forever.
  // An idle connection is kept for a minute (pg's default is 10 s): a pause in the traffic
  // shorter than that does not cost the next requests new connections, each a new PostgreSQL
  // process whose catalog cache and prepared statements start empty.
  const pool = createPool({
    connectionString: url,
    max: poolSize,
    types: poolTypes,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
  });
  const prisma = new PrismaClient({ adapter: new ServicePrismaPg(pool) });
  pools.set(prisma, pool);
  return {
    prisma,
    pool,
    async close() {
      await Promise.all((closers.get(pool) ?? []).map((close) => close().catch(() => {})));
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
