/**
 * Connections a worker process keeps to one customer database (PostgreSQL, MySQL) whose
 * integration sets no `maxConcurrency`: steps beyond it wait for a connection, so that a
 * customer database is not sent one for every step a worker may run (`WORKER_CONCURRENCY`).
 * With a `maxConcurrency`, the pool holds up to that many instead: the claim never runs more
 * of the integration's steps at once, across all worker processes.
 */
export const DEFAULT_CONNECTIONS = 4;

/** The most connections a worker keeps for an integration with this `maxConcurrency` (null or absent: none). */
export const connectionsFor = (maxConcurrency: number | null | undefined) => maxConcurrency ?? DEFAULT_CONNECTIONS;
