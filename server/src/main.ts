import './runtime-mode';
import { ConfigError, loadConfig, type Config } from './config';
import { prepareDatabase } from './db/bootstrap';
import { connectDatabase, usePreparedStatements } from './db/client';
import { buildApp } from './http/app';
import type { Keyring } from './lib/crypto';
import { KeyConfigurationError, loadKeyring } from './services/keys/master-key';
import { createLogger, type Logger } from './lib/logger';
import { policyFromConfig } from './lib/ssrf';
import { Worker } from './pipeline/worker/worker';
import { closeDrivers } from './integrations/registry';
import { Scheduler } from './jobs/scheduler';
import { CallbackDispatcher } from './callbacks/dispatcher';
import { startMetricsServer } from './metrics/http';
import { watchQueueDepth } from './metrics/queue-depth';
import { recordEngineStep, registry } from './metrics/service-metrics';
import { closeStoreConnections } from './integrations/stores/close';
import { closeInTurn } from './lib/close-in-turn';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const log: Logger = createLogger(config.LOG_LEVEL);
  if (config.encryptionKeySource === 'generated') {
    log.warn(
      { file: `${config.DATA_DIR}/encryption.key` },
      'generated a new ENCRYPTION_KEY for the embedded database; back this file up, secrets cannot be read without it',
    );
  }
  const server = await prepareDatabase(config, log);
  usePreparedStatements(config.DB_PREPARED_STATEMENTS);
  const database = connectDatabase(server.url, config.DB_POOL_SIZE);
  let keyring: Keyring;
  try {
    keyring = await loadKeyring(database.prisma, config);
  } catch (error) {
    if (!(error instanceof KeyConfigurationError)) throw error;
    process.stderr.write(`Encryption key problem: ${error.message}\n`);
    await database.close();
    await server.stop();
    process.exit(78);
  }
  const deps = { prisma: database.prisma, keyring, config, log, policy: policyFromConfig(config) };
  const runsApi = config.ROLE !== 'worker';
  const worker =
    config.ROLE !== 'api'
      ? new Worker(
          { ...deps, pool: database.pool },
          {
            concurrency: config.WORKER_CONCURRENCY,
            pollIntervalMs: config.WORKER_POLL_MS,
            leaseMs: config.LEASE_SECONDS * 1000,
            onStep: recordEngineStep,
          },
        )
      : null;
  const callbacks =
    config.ROLE !== 'api'
      ? new CallbackDispatcher(
          { ...deps, pool: database.pool },
          {
            concurrency: config.CALLBACK_CONCURRENCY,
            pollIntervalMs: config.CALLBACK_POLL_MS,
            leaseMs: config.LEASE_SECONDS * 1000,
            maxAttempts: config.CALLBACK_MAX_ATTEMPTS,
            retryBaseMs: config.CALLBACK_RETRY_BASE_MS,
            retryMaxMs: config.CALLBACK_RETRY_MAX_MS,
            timeoutMs: config.CALLBACK_TIMEOUT_MS,
          },
        )
      : null;
  // Retention (daily at midnight UTC) and audit-chain sealing run in worker processes.
  const scheduler = worker
    ? new Scheduler(
        database.prisma,
        database.pool,
        log,
        config.AUDIT_SEAL_INTERVAL_MS,
        deps,
        config.AUDIT_LOG_RETENTION_MONTHS,
      )
    : null;
  const app = runsApi ? await buildApp(deps) : null;

  // Queue depth comes from the database, so any process can report it; the API and workers do.
  watchQueueDepth(registry, database.pool);
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // All at once, within one grace period: requests in progress may finish (a connection that
    // holds on after it, a stalled upload or a client that never reads, is cut), and in-flight
    // deletions and deliveries may finish or are handed back to the queue. The workers stop
    // claiming at once rather than after the HTTP server has drained.
    scheduler?.stop();
    const cutOff = setTimeout(() => app?.server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
    await Promise.all([
      app?.close().catch((err) => log.error({ err }, 'error closing HTTP server')),
      worker?.stop(config.SHUTDOWN_GRACE_MS).catch((err) => log.error({ err }, 'error stopping the worker')),
      callbacks
        ?.stop(config.SHUTDOWN_GRACE_MS)
        .catch((err) => log.error({ err }, 'error stopping the callback dispatcher')),
    ]);
    clearTimeout(cutOff);
    // Then what is still open, each for at most a grace period of its own: a close that hangs
    // (a customer database that stopped answering) does not keep the process, or the embedded
    // PostgreSQL, running.
    await closeInTurn(
      [
        // Connections to destinations and customer data stores kept between steps close now rather than when idle.
        { what: 'destination connections', close: closeDrivers },
        { what: 'the metrics server', close: async () => metricsServer?.close() },
        { what: 'data-store connections', close: closeStoreConnections },
        { what: 'the service database connections', close: () => database.close() },
        { what: 'the embedded PostgreSQL', close: () => server.stop() },
      ],
      config.SHUTDOWN_GRACE_MS,
      log,
    );
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // A promise nobody awaits that fails (a query sent while the database restarts) is logged, not
  // fatal: the work it belonged to is in the database, and its lease brings it back to a worker.
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection'));

  try {
    await worker?.start();
    await callbacks?.start();
    scheduler?.start();
    await app?.listen({ port: config.PORT, host: config.HOST });
    if (config.METRICS_PORT !== undefined)
      metricsServer = await startMetricsServer(config.METRICS_PORT, config.HOST, () => !stopping);
  } catch (error) {
    // (The port was taken, say.) Whatever was claimed goes back to the queue at once.
    scheduler?.stop();
    await Promise.all([worker?.stop(0), callbacks?.stop(0)]);
    await database.close();
    await server.stop();
    throw error;
  }
  log.info(
    { url: config.PUBLIC_URL, database: server.embedded ? 'embedded' : 'external', role: config.ROLE },
    'deletion request service is ready',
  );
}

main().catch((error) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
