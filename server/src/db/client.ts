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

export function connectDatabase(url: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
