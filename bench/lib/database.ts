import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../server/src/db/embedded';
import { applyMigrations } from '../../server/src/db/migrate';

const TEMPLATE = 'bench_template';

export interface BenchCluster {
  /** Connection string of the maintenance database (to create and drop the bench databases). */
  adminUrl: string;
  embedded: boolean;
  /** A fresh, migrated database cloned from the template. */
  createDatabase(name: string, opts?: { migrated?: boolean }): Promise<string>;
  stop(): Promise<void>;
}

function urlFor(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** DATABASE_URL's server, or an embedded PostgreSQL in a temporary directory. */
export async function startCluster(): Promise<BenchCluster> {
  let adminUrl = process.env.DATABASE_URL;
  let stopServer = async () => {};
  let dir: string | undefined;
  if (!adminUrl) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-bench-pg-'));
    fs.chmodSync(dir, 0o755);
    const server = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'data'),
      database: 'postgres',
      persistent: false,
      detached: false,
    });
    adminUrl = server.url;
    stopServer = server.stop;
  }
  const created: string[] = [];
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${TEMPLATE}`);
  created.push(TEMPLATE);
  await applyMigrations(urlFor(adminUrl, TEMPLATE));
  return {
    adminUrl,
    embedded: !process.env.DATABASE_URL,
    async createDatabase(name, opts = {}) {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin(opts.migrated === false ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
      created.push(name);
      return urlFor(adminUrl!, name);
    },
    async stop() {
      for (const name of created.reverse()) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await stopServer();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
