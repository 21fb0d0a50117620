import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort, waitUntil } from './free-port';

const run = promisify(execFile);

/**
 * A real MariaDB server (Debian's `mariadb-server`) for one test file: its own data
 * directory in a temp dir, a free port on loopback, and the collation Debian configures by
 * default (utf8mb4_general_ci: case- and accent-insensitive, PAD SPACE). Root logs in over
 * the socket only; tests and the service use a password user over TCP, as a customer would.
 */
export async function startMariaDb() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-test-mariadb-'));
  const dataDir = path.join(dir, 'data');
  const socket = path.join(dir, 'mariadb.sock');
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  await run(
    'mariadb-install-db',
    ['--no-defaults', `--datadir=${dataDir}`, ...asRoot, '--auth-root-authentication-method=normal', '--skip-test-db'],
    {
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/usr/bin` },
    },
  );
  const port = await freePort();
  const mariadbd = fs.existsSync('/usr/sbin/mariadbd') ? '/usr/sbin/mariadbd' : 'mariadbd';
  const server: ChildProcess = spawn(
    mariadbd,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--socket=${socket}`,
      `--pid-file=${path.join(dir, 'mariadb.pid')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      '--skip-name-resolve',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_general_ci',
      '--innodb-buffer-pool-size=16M',
      '--innodb-flush-log-at-trx-commit=0',
      '--skip-log-bin',
      ...asRoot,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const root = () => mysql.createConnection({ socketPath: socket, user: 'root', multipleStatements: true });
  await waitUntil(
    async () => {
      if (server.exitCode !== null) throw new Error(`mariadbd exited: ${log}`);
      await (await root()).end();
    },
    30_000,
    'MariaDB',
  );
  const admin = await root();
  const password = 'app-pass-1';
  await admin.query(`CREATE USER 'app'@'%' IDENTIFIED BY '${password}'; GRANT ALL ON *.* TO 'app'@'%'`);
  await admin.end();
  let databases = 0;

  return {
    port,
    /** Statements as root (over the socket): users and grants a customer's administrator would set up. */
    async asRoot(sql: string) {
      const connection = await root();
      try {
        await connection.query(sql);
      } finally {
        await connection.end();
      }
    },
    /** A fresh database, with a pool for the test's own reads and writes. */
    async createDatabase(setup: string) {
      const name = `customer_${++databases}`;
      const pool = mysql.createPool({
        host: '127.0.0.1',
        port,
        user: 'app',
        password,
        multipleStatements: true,
        connectionLimit: 3,
      });
      await pool.query(`CREATE DATABASE \`${name}\``);
      await pool.query(`USE \`${name}\`; ${setup}`);
      const db = mysql.createPool({
        host: '127.0.0.1',
        port,
        user: 'app',
        password,
        database: name,
        connectionLimit: 3,
        multipleStatements: true,
      });
      await pool.end();
      return {
        name,
        pool: db,
        credentials: { host: '127.0.0.1', port, database: name, user: 'app', password, sslMode: 'disable' as const },
        async count(sql: string, values: unknown[] = []) {
          const [rows] = await db.query(sql, values);
          return Number(Object.values((rows as object[])[0]!)[0]);
        },
        close: () => db.end(),
      };
    },
    async stop() {
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type MariaDbServer = Awaited<ReturnType<typeof startMariaDb>>;
