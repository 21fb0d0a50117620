import { createHash } from 'node:crypto';
import type pg from 'pg';
import { checkOut, createPool, type HeldClient } from '../../db/connections';
import type { AccountSecretsByType } from '@shared/integrations/accounts';
import type { DiscoveredTable, DriverContext } from '../types';
import { PermanentError } from '../types';
import { discoverSchema } from './schema';

type DatabaseSecrets = AccountSecretsByType['DATABASE'];

/** How to reach a customer database: the SSRF-checked address, TLS checked against the host name, a statement timeout. */
export function connectionConfig(secrets: DatabaseSecrets, address: string, statementTimeoutMs: number): pg.ClientConfig {
  return {
    host: address,
    port: secrets.port ?? 5432,
    database: secrets.database,
    user: secrets.user,
    password: secrets.password,
    ssl: secrets.sslMode === 'disable' ? false : { rejectUnauthorized: secrets.sslMode === 'verify-full', servername: /^[\d.:]+$/.test(secrets.host) ? undefined : secrets.host },
    connectionTimeoutMillis: 10_000,
    statement_timeout: statementTimeoutMs,
    application_name: 'deletion-request-service',
  };
}

const IDLE_MS = 10_000;
const SCHEMA_TTL_MS = 30_000;
const POOL_MAX = 4;

interface Destination {
  pool: pg.Pool;
  schema: { tables: DiscoveredTable[]; at: number } | null;
}

/**
 * Connections to customer databases, kept for a few seconds between engine steps: opening
 * one (a new server process, SCRAM authentication) and reading information_schema cost more
 * than the deletion itself. Keyed by the SSRF-checked address, the credentials and the
 * statement timeout, so a rotated password or a moved host gets a new pool. Idle
 * connections close after IDLE_MS and never keep the process alive.
 */
const destinations = new Map<string, Destination>();

export interface Session {
  client: pg.PoolClient;
  /** Tables and columns, re-read at most every SCHEMA_TTL_MS (or at once with `fresh`). */
  schema(fresh?: boolean): Promise<{ tables: DiscoveredTable[]; cached: boolean }>;
}

export async function withSession<T>(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
  statementTimeoutMs: number,
  connectError: (error: unknown) => Error,
  use: (session: Session) => Promise<T>,
): Promise<T> {
  const secrets = ctx.secrets as DatabaseSecrets | null;
  if (!secrets?.host) throw new PermanentError('This integration needs a database account');
  const address = await ctx.resolveHost(secrets.host);
  const key = createHash('sha256').update(JSON.stringify([address, secrets, statementTimeoutMs])).digest('hex');
  let destination = destinations.get(key);
  if (!destination) {
    const pool = createPool({
      ...connectionConfig(secrets, address, statementTimeoutMs),
      max: POOL_MAX,
      idleTimeoutMillis: IDLE_MS,
      allowExitOnIdle: true,
    });
    destination = { pool, schema: null };
    destinations.set(key, destination);
  }
  let held: HeldClient;
  try {
    held = await checkOut(destination.pool);
  } catch (error) {
    throw connectError(error);
  }
  const client = held.client;
  const current = destination;
  let broken = false;
  try {
    return await use({
      client,
      async schema(fresh = false) {
        if (!fresh && current.schema && Date.now() - current.schema.at < SCHEMA_TTL_MS) return { tables: current.schema.tables, cached: true };
        const tables = await discoverSchema(client as unknown as pg.Client);
        current.schema = { tables, at: Date.now() };
        return { tables, cached: false };
      },
    });
  } catch (error) {
    // A connection that saw an error may be mid-transaction: it is closed, not reused.
    broken = true;
    throw error;
  } finally {
    held.release(broken);
  }
}

/** Closes every kept connection (tests, shutdown). */
export async function closeSessions(): Promise<void> {
  const pools = [...destinations.values()].map((d) => d.pool);
  destinations.clear();
  await Promise.all(pools.map((p) => p.end().catch(() => {})));
}
