import net from 'node:net';
import mysql from 'mysql2/promise';
import type { AccountSecretsByType } from '@shared/integrations/accounts';
import type { DriverContext } from '../types';
import { PermanentError } from '../types';
import { connectionsFor } from '../sql/connections';
import { IdleCache } from '../stores/idle-cache';
import { classifyMysqlError } from './errors';

type DatabaseSecrets = AccountSecretsByType['DATABASE'];

export const MYSQL_DEFAULT_PORT = 3306;

/** Pools per destination (up to `connectionsFor` connections: the integration's `maxConcurrency`, else the worker's `CUSTOMER_DB_CONNECTIONS`); each closes after 10 s without use (and its idle connections after 5 s). */
const pools = new IdleCache<mysql.Pool>((pool) => pool.end(), 10_000);
const flavors = new WeakMap<mysql.Pool, 'mariadb' | 'mysql'>();

/**
 * How to reach a customer database: the socket goes to the SSRF-checked address, while the
 * host name stays the TLS server name that verify-full checks the certificate against.
 */
function poolOptions(secrets: DatabaseSecrets, address: string, connectionLimit: number): mysql.PoolOptions {
  const port = secrets.port ?? MYSQL_DEFAULT_PORT;
  return {
    host: secrets.host,
    port,
    stream: () => net.connect({ host: address, port }).setNoDelay(true),
    database: secrets.database,
    user: secrets.user,
    password: secrets.password,
    ssl:
      secrets.sslMode === 'disable'
        ? undefined
        : { rejectUnauthorized: secrets.sslMode === 'verify-full', verifyIdentity: secrets.sslMode === 'verify-full' },
    connectTimeout: 10_000,
    connectionLimit,
    maxIdle: 0,
    idleTimeout: 5_000,
    charset: 'UTF8MB4_GENERAL_CI',
    // Identifiers and values stay strings and numbers as the server sends them; no local time zone guesses.
    dateStrings: true,
    supportBigNumbers: true,
  };
}

/**
 * Runs `use` on one connection of the destination's pool, with the statement timeout set for
 * the session (MariaDB: max_statement_time covers every statement; MySQL: max_execution_time
 * covers reads, innodb_lock_wait_timeout bounds the waits of writes). A connection that saw
 * an error is destroyed, never handed back mid-transaction.
 */
export async function withMysqlConnection<T>(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets' | 'maxConcurrency' | 'connections'>,
  statementTimeoutMs: number,
  use: (connection: mysql.PoolConnection) => Promise<T>,
): Promise<T> {
  const secrets = ctx.secrets as DatabaseSecrets | null;
  if (!secrets?.host) throw new PermanentError('This integration needs a database account');
  const address = await ctx.resolveHost(secrets.host);
  const limit = connectionsFor(ctx);
  return pools.with(
    IdleCache.key([address, secrets, limit]),
    () => mysql.createPool(poolOptions(secrets, address, limit)),
    async (pool) => {
      let connection: mysql.PoolConnection;
      try {
        connection = await pool.getConnection();
      } catch (error) {
        throw classifyMysqlError(error);
      }
      let broken = false;
      try {
        let flavor = flavors.get(pool);
        if (!flavor) {
          const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
          flavor = /mariadb/i.test(String(rows[0]?.v)) ? 'mariadb' : 'mysql';
          flavors.set(pool, flavor);
        }
        const seconds = Math.max(1, Math.ceil(statementTimeoutMs / 1000));
        // mysql2 writes the values into the statement with backslash escapes (\'); a server whose
        // sql_mode has NO_BACKSLASH_ESCAPES would read `x\' OR 1=1` as a string and a condition.
        // This session never has it, whatever the server's default.
        const withoutNoBackslashEscapes = `TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))`;
        await connection.query(
          flavor === 'mariadb'
            ? `SET SESSION max_statement_time = ${statementTimeoutMs / 1000}, innodb_lock_wait_timeout = ${seconds}, sql_mode = ${withoutNoBackslashEscapes}`
            : `SET SESSION max_execution_time = ${Math.round(statementTimeoutMs)}, innodb_lock_wait_timeout = ${seconds}, sql_mode = ${withoutNoBackslashEscapes}`,
        );
        return await use(connection);
      } catch (error) {
        broken = true;
        throw error;
      } finally {
        if (broken) connection.destroy();
        else connection.release();
      }
    },
  );
}

/** Open pools (tests check that they close when idle). */
export const openMysqlPools = () => pools.size;

/** Closes every kept pool (tests, shutdown). */
export const closeMysqlPools = () => pools.closeAll();
