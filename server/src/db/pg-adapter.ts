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
