import pg from 'pg';

/**
 * Connection loss is an ordinary event: a database restart or a managed service's failover
 * drops every connection at once. node-postgres reports it as an 'error' event on the
 * client, and an EventEmitter with no 'error' listener throws, which ends the process.
 * Everything here makes sure that each connection has a listener for its whole life, so
 * the loss surfaces only as a rejected query, which the caller retries or hands back.
 */

/** SQLSTATE classes and Node error codes that mean "the server is not there", not "the statement is wrong". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNREACHABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is shutting down (restart, failover)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or in recovery
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '53300', // too_many_connections
]);
const UNREACHABLE_MESSAGES = [
  /Connection terminated/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /Client has encountered a connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Connection ended unexpectedly/i,
  /connect ECONNREFUSED/i,
];

/**
 * True when `error` (or any error in its `cause` chain, as Prisma's adapter wraps them) says
 * the database could not be reached or dropped the connection: worth retrying later, and
 * for the API a 503, not a 500.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    const { code, message, kind } = e as { code?: unknown; message?: unknown; kind?: unknown };
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNREACHABLE_SQLSTATES.has(code))) return true;
    // Prisma's driver adapter errors: { kind: 'DatabaseNotReachable' | 'ConnectionClosed' ... }.
    if (kind === 'DatabaseNotReachable' || kind === 'ConnectionClosed' || kind === 'SocketTimeout') return true;
    // Prisma's known request errors for an unreachable server.
    if (code === 'P1001' || code === 'P1002' || code === 'P1017' || code === 'P2024') return true;
    if (typeof message === 'string' && UNREACHABLE_MESSAGES.some((re) => re.test(message))) return true;
    if (
      Array.isArray((e as AggregateError).errors) &&
      (e as AggregateError).errors.some((inner) => isDatabaseUnreachable(inner))
    )
      return true;
  }
  return false;
}

/** While PostgreSQL is unreachable, clients are answered 503 with this Retry-After: come back, nothing failed for good. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const ignore = () => {};

/**
 * A pool whose every connection keeps an 'error' listener for its whole life, including
 * while it is checked out by code that is not ours (Prisma's adapter holds one for each
 * interactive transaction). A broken connection then fails its query, is not returned to
 * the pool (pg-pool drops clients that are no longer queryable) and the pool opens a new
 * one when the database is back.
 */
export function createPool(config: pg.PoolConfig, onConnectionError: (error: Error) => void = ignore): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', onConnectionError);
  pool.on('connect', (client) => {
    client.on('error', onConnectionError);
  });
  return pool;
}

/** A client checked out of a pool: `release()` returns it, or closes it when its connection failed (or when told to `discard` it). */
export interface HeldClient {
  client: pg.PoolClient;
  release(discard?: boolean): void;
}

/**
 * Checks a client out of `pool` with an 'error' listener attached for as long as it is
 * held: a connection dropped while held ends its queries with an error instead of ending
 * the process, and the client is closed rather than reused when released.
 */
export async function checkOut(pool: pg.Pool): Promise<HeldClient> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  let released = false;
  return {
    client,
    release(discard = false) {
      if (released) return;
      released = true;
      // pg-pool attaches its own listener again as the client goes back (or is closed).
      client.removeListener('error', onError);
      client.release(lost ?? (discard || !isQueryable(client)));
    },
  };
}

/**
 * A standalone connection (LISTEN, migrations, the CLI's admin statements) that never
 * throws an unhandled 'error': `onLost` is called once when the connection fails or ends
 * unexpectedly, so the owner can reconnect or give up cleanly.
 */
export async function connectClient(
  config: string | pg.ClientConfig,
  onLost: (error?: Error) => void = ignore,
): Promise<pg.Client> {
  const client = new pg.Client(typeof config === 'string' ? { connectionString: config } : config);
  let ended = false;
  let reported = false;
  const lost = (error?: Error) => {
    if (ended || reported) return;
    reported = true;
    onLost(error);
  };
  client.on('error', (error) => lost(error));
  client.on('end', () => lost());
  const end = client.end.bind(client);
  client.end = (() => {
    ended = true;
    return end();
  }) as typeof client.end;
  try {
    await client.connect();
  } catch (error) {
    ended = true;
    await end().catch(ignore);
    throw error;
  }
  return client;
}

function isQueryable(client: pg.PoolClient): boolean {
  const state = client as unknown as { _queryable?: boolean; _ending?: boolean };
  return state._queryable !== false && !state._ending;
}
