import { NOW_UTC } from '../pipeline/store/sql';
import { CallbackGauge, type Registry } from './registry';

interface Queryable {
  query<R>(text: string): Promise<{ rows: R[] }>;
}

const ACTIVE = `status IN ('STAGING', 'PENDING', 'PROCESSING')`;

/**
 * Queue depth read from the integration request rows at scrape time: due (waiting for a
 * worker), leased (a worker has it) and scheduled (retry, poll or maintenance window later),
 * plus the age of the oldest due row. Finished rows have no nextAttemptAt, so the index on it
 * reads only the active ones and this stays cheap however long the history (EXPLAIN).
 */
export function watchQueueDepth(registry: Registry, db: Queryable): () => void {
  let cached: {
    at: number;
    rows: Promise<{ type: string; due: string; leased: string; scheduled: string; oldest: number | null }[]>;
  } | null = null;
  const read = () => {
    // Both gauges of one scrape share one query.
    if (!cached || Date.now() - cached.at > 500) {
      const rows = db
        .query<{ type: string; due: string; leased: string; scheduled: string; oldest: number | null }>(
          `SELECT "integrationType"::text AS type,
                  count(*) FILTER (WHERE "nextAttemptAt" <= ${NOW_UTC} AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})) AS due,
                  count(*) FILTER (WHERE "lockedUntil" >= ${NOW_UTC}) AS leased,
                  count(*) FILTER (WHERE "nextAttemptAt" > ${NOW_UTC} AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})) AS scheduled,
                  extract(epoch FROM ${NOW_UTC} - min("nextAttemptAt") FILTER (WHERE "nextAttemptAt" <= ${NOW_UTC} AND ("lockedUntil" IS NULL OR "lockedUntil" < ${NOW_UTC})))::float8 AS oldest
             FROM "IntegrationRequest" WHERE ${ACTIVE} AND "nextAttemptAt" IS NOT NULL GROUP BY 1`,
        )
        .then((r) => r.rows);
      rows.catch(() => {});
      cached = { at: Date.now(), rows };
    }
    return cached.rows;
  };
  const depth = new CallbackGauge(
    'dds_queue_depth',
    'Active integration requests by type and state: due (waiting for a worker), leased (running), scheduled (later).',
    async () =>
      (await read()).flatMap((r) =>
        (['due', 'leased', 'scheduled'] as const).map((state) => ({
          labels: { type: r.type, state },
          value: Number(r[state]),
        })),
      ),
  );
  const oldest = new CallbackGauge(
    'dds_queue_oldest_due_seconds',
    'How long the oldest due integration request has waited for a worker, by type.',
    async () => (await read()).map((r) => ({ labels: { type: r.type }, value: r.oldest ?? 0 })),
  );
  // The same query tells whether this process reaches the database (0 during an outage or failover).
  const up = new CallbackGauge(
    'dds_database_up',
    'Whether this process reached PostgreSQL at the last scrape (1) or not (0).',
    async () => [
      {
        labels: {},
        value: await read().then(
          () => 1,
          () => 0,
        ),
      },
    ],
  );
  registry.register(depth);
  registry.register(oldest);
  registry.register(up);
  return () => {
    registry.unregister(depth);
    registry.unregister(oldest);
    registry.unregister(up);
  };
}
