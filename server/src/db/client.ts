import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

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
    oid === TIMESTAMP_OID && format !== 'binary' ? readUtcTimestamp : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

const pools = new WeakMap<object, pg.Pool>();

/**
 * Runs one parameterised statement ($1, $2 ...) straight on the pool under `db` when there
 * is one, skipping the ORM's per-query work; the few statements on the public API's hot
 * path use it. Inside a transaction (or on a client made elsewhere) it goes through Prisma.
 */
export async function hotQuery<R>(db: DbOrTx, text: string, values: unknown[]): Promise<R[]> {
  const pool = pools.get(db);
  if (pool) return (await pool.query(text, values)).rows as R[];
  return (db as Db).$queryRawUnsafe<R[]>(text, ...values);
}

export function connectDatabase(url: string, poolSize: number): Database {
  // Prisma's adapter sets its own type parsers per query; these apply to hotQuery only.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: poolTypes });
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  pools.set(prisma, pool);
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
