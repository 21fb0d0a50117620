/**
 * Connections a worker process keeps to one customer database (PostgreSQL, MySQL) whose
 * integration sets no `maxConcurrency`, unless `CUSTOMER_DB_CONNECTIONS` says otherwise: steps
 * beyond it wait for a connection, so that a customer database is not sent one for every step a
 * worker may run (`WORKER_CONCURRENCY`). With a `maxConcurrency`, the pool holds up to that many
 * instead: the claim never runs more of the integration's steps at once, across all worker
 * processes.
 */
export const DEFAULT_CONNECTIONS = 4;

/**
 * The most connections a worker keeps for an integration: its `maxConcurrency`, else the
 * worker's `CUSTOMER_DB_CONNECTIONS` (`connections`), else `DEFAULT_CONNECTIONS`.
 */
export const connectionsFor = (ctx: { maxConcurrency?: number | null; connections?: number }) =>
  ctx.maxConcurrency ?? ctx.connections ?? DEFAULT_CONNECTIONS;
