import path from 'node:path';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';
import { startEmbeddedPostgres } from './embedded';
import { applyMigrations } from './migrate';

export interface DatabaseServer {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** Uses DATABASE_URL, or starts the embedded PostgreSQL in DATA_DIR; then applies migrations. */
export async function prepareDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>,
  log: Logger,
): Promise<DatabaseServer> {
  let server: DatabaseServer;
  if (config.DATABASE_URL) {
    server = { url: config.DATABASE_URL, embedded: false, stop: async () => {} };
  } else {
    const dataDir = path.resolve(config.DATA_DIR, 'postgres');
    log.info({ dataDir }, 'starting embedded PostgreSQL');
    // Detached: a terminal's Ctrl-C reaches only the service, which stops PostgreSQL last.
    const embedded = await startEmbeddedPostgres({
      dataDir,
      detached: true,
      supervise: true,
      log: (level, message, fields) => log[level](fields ?? {}, message),
    });
    server = { url: embedded.url, embedded: true, stop: embedded.stop };
  }
  const applied = await applyMigrations(server.url);
  log.info({ applied }, applied.length ? 'database migrations applied' : 'database schema is up to date');
  return server;
}
