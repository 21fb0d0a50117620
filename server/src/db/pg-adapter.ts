import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { connectClient, createPool } from './connections';

// PostgreSQL types `name` (19) and `"char"` (18) appear in catalog queries made by
// Prisma's schema engine; the adapter cannot map them, so they are read as text (25).
const CATALOG_TYPES = new Set([18, 19]);

function retypeCatalogColumns(result: unknown): void {
  const results = Array.isArray(result) ? result : [result];
  for (const r of results) {
    const fields = (r as pg.QueryResult | undefined)?.fields;
    if (!fields) continue;
    for (const field of fields) if (CATALOG_TYPES.has(field.dataTypeID)) field.dataTypeID = 25;
  }
}

export class CatalogFriendlyClient extends pg.Client {
  // pg's Client.query has many overloads; the wrapper keeps both the callback and promise styles.
  override query(...args: any[]): any {
    const callbackIndex = args.findIndex((a) => typeof a === 'function');
    if (callbackIndex >= 0) {
      const callback = args[callbackIndex];
      args[callbackIndex] = (err: Error | null, res: unknown) => {
        if (!err) retypeCatalogColumns(res);
        callback(err, res);
      };
      return (super.query as any)(...args);
    }
    const maybe = (super.query as any)(...args);
    if (maybe && typeof maybe.then === 'function') {
      return maybe.then((res: unknown) => {
        retypeCatalogColumns(res);
        return res;
      });
    }
    return maybe;
  }
}

/**
 * The service's Prisma driver adapter: PrismaPg, except that a transaction gives its connection
 * back to the pool however it ends. Prisma sends COMMIT (or ROLLBACK) and only then releases the
 * connection, so a connection lost inside a transaction (a database restart, a failover) failed
 * that statement and was never released: each outage took a pool slot for good, and a shutdown
 * waited forever for it in `pool.end()`. Here a failed COMMIT or ROLLBACK releases the connection
 * at once, discarded rather than reused.
 */
export class ServicePrismaPg extends PrismaPg {
  override async connect(): ReturnType<PrismaPg['connect']> {
    const adapter = await super.connect();
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => releasedAtEnd(await startTransaction(isolationLevel));
    return adapter;
  }
}

type Transaction = Awaited<ReturnType<Awaited<ReturnType<PrismaPg['connect']>>['startTransaction']>>;
type SqlQuery = Parameters<Transaction['executeRaw']>[0];

const ENDS_TRANSACTION = new Set(['COMMIT', 'ROLLBACK']);

function releasedAtEnd(transaction: Transaction): Transaction {
  // PrismaPg's transaction: the pool client it holds, and the removal of its own error listener.
  const tx = transaction as Transaction & { client: pg.PoolClient; cleanup?: () => void };
  let released = false;
  const once =
    <A extends unknown[], R>(end: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      if (released) return undefined;
      released = true;
      return end(...args);
    };
  const executeRaw = tx.executeRaw.bind(tx);
  tx.executeRaw = async (query: SqlQuery) => {
    try {
      return await executeRaw(query);
    } catch (error) {
      if (ENDS_TRANSACTION.has(query.sql) && !released) {
        released = true;
        tx.cleanup?.();
        tx.client.release(error instanceof Error ? error : true);
      }
      throw error;
    }
  };
  tx.commit = once(tx.commit.bind(tx)) as Transaction['commit'];
  tx.rollback = once(tx.rollback.bind(tx)) as Transaction['rollback'];
  return tx;
}

function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/** A Prisma driver adapter factory for the schema engine (migrations), offline. */
export function createMigrationAdapter(connectionString: string): PrismaPg {
  const pool = createPool({ connectionString, Client: CatalogFriendlyClient as any, max: 4 });
  const factory = new PrismaPg(pool);
  // The stock shadow database reuses the main URL and drops it while its pool is open.
  (factory as any).connectToShadowDb = async () => {
    const name = `prisma_shadow_${randomBytes(6).toString('hex')}`;
    const admin = await connectClient(connectionString);
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await admin.end();
    const url = new URL(connectionString);
    url.pathname = `/${name}`;
    const shadowPool = createPool({ connectionString: url.toString(), Client: CatalogFriendlyClient as any, max: 2 });
    const adapter = await new PrismaPg(shadowPool).connect();
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await shadowPool.end();
      const cleanup = await connectClient(connectionString);
      await cleanup.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await cleanup.end();
    };
    return adapter;
  };
  return factory;
}
