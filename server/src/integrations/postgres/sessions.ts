import type pg from 'pg';
import { checkOut, createPool, type HeldClient } from '../../db/connections';
import type { AccountSecretsByType } from '@shared/integrations/accounts';
import type { DiscoveredTable, DriverContext } from '../types';
import { PermanentError } from '../types';
import { connectionsFor } from '../sql/connections';
import { IdleCache } from '../stores/idle-cache';
import { discoverSchema } from './schema';

type DatabaseSecrets = AccountSecretsByType['DATABASE'];

/** How to reach a customer database: the SSRF-checked address, TLS checked against the host name, a statement timeout. */
export function connectionConfig(
  secrets: DatabaseSecrets,
  address: string,
  statementTimeoutMs: number,
): pg.ClientConfig {
  return {
    host: address,
    port: secrets.port ?? 5432,
    database: secrets.database,
    user: secrets.user,
    password: secrets.password,
    ssl:
      secrets.sslMode === 'disable'
        ? false
        : {
            rejectUnauthorized: secrets.sslMode === 'verify-full',
            servername: /^[\d.:]+$/.test(secrets.host) ? undefined : secrets.host,
          },
    connectionTimeoutMillis: 10_000,
    statement_timeout: statementTimeoutMs,
    application_name: 'deletion-request-service',
  };
}

const IDLE_MS = 10_000;
const SCHEMA_TTL_MS = 30_000;

interface Destination {
  pool: pg.Pool;
  schema: { tables: DiscoveredTable[]; at: number } | null;
}

/**
 * Connections to customer databases, kept for a few seconds between engine steps: opening
 * one (a new server process, SCRAM authentication) and reading information_schema cost more
 * than the deletion itself. Keyed by the SSRF-checked address, the credentials and the
 * statement timeout, so a rotated password or a moved host gets a new pool; a pool nobody has
 * used for IDLE_MS is closed and dropped (and never keeps the process alive), and
 * `closeSessions` closes them all at shutdown. A pool holds up to `connectionsFor` connections:
 * the integration's `maxConcurrency`, else the worker's `CUSTOMER_DB_CONNECTIONS`.
 */
const destinations = new IdleCache<Destination>((destination) => destination.pool.end(), IDLE_MS);

export interface Session {
  client: pg.PoolClient;
  /** Tables and columns, re-read at most every SCHEMA_TTL_MS (or at once with `fresh`). */
  schema(fresh?: boolean): Promise<{ tables: DiscoveredTable[]; cached: boolean }>;
}

export async function withSession<T>(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets' | 'maxConcurrency' | 'connections'>,
  statementTimeoutMs: number,
  connectError: (error: unknown) => Error,
  use: (session: Session) => Promise<T>,
): Promise<T> {
  const secrets = ctx.secrets as DatabaseSecrets | null;
  if (!secrets?.host) throw new PermanentError('This integration needs a database account');
  const address = await ctx.resolveHost(secrets.host);
  const max = connectionsFor(ctx);
  const create = (): Destination => ({
    pool: createPool({
      ...connectionConfig(secrets, address, statementTimeoutMs),
      max,
      idleTimeoutMillis: IDLE_MS,
      allowExitOnIdle: true,
    }),
    schema: null,
  });
  return destinations.with(IdleCache.key([address, secrets, statementTimeoutMs, max]), create, async (current) => {
    let held: HeldClient;
    try {
      held = await checkOut(current.pool);
    } catch (error) {
      throw connectError(error);
    }
    const client = held.client;
    let broken = false;
    try {
      return await use({
        client,
        async schema(fresh = false) {
          if (!fresh && current.schema && Date.now() - current.schema.at < SCHEMA_TTL_MS)
            return { tables: current.schema.tables, cached: true };
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
  });
}

/** How many customer-database pools are open (tests: they close when idle). */
export const openSessions = () => destinations.size;

/** Closes every kept connection (tests, shutdown). */
export const closeSessions = () => destinations.closeAll();
