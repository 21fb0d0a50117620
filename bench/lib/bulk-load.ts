import pg from 'pg';
import { configSnapshotKey, storeConfigSnapshots } from '../../server/src/pipeline/store/sql';
import type { SeededOrganization } from './seed';

/**
 * Writes `count` finished deletion requests (two integration requests each) straight with
 * SQL: 100,000 through the API would take longer than the whole bench. Spread over the
 * organization's workspaces and its two users, newest first one second apart, with a mix
 * of outcomes, then ANALYZE so the planner sees the real sizes.
 */
export async function bulkLoadRequests(url: string, org: SeededOrganization, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO "DeletionRequest" (id, "organizationId", "workspaceId", identifier, "identifierHmac", status, channel, "createdByUserId", "createdAt", "updatedAt", "completedAt")
       SELECT 'dr_bulk' || lpad(g::text, 8, '0'), $1, ($2::text[])[1 + g % array_length($2::text[], 1)],
              'subject-' || g || '@customer.example', sha256(convert_to('subject-' || g, 'UTF8')),
              (CASE WHEN g % 20 = 0 THEN 'FAILED' WHEN g % 33 = 0 THEN 'PENDING' ELSE 'SUCCESS' END)::"RequestStatus",
              'API', ($3::text[])[1 + g % 2],
              now() - make_interval(secs => g), now() - make_interval(secs => g) + interval '2 seconds',
              CASE WHEN g % 33 = 0 AND g % 20 <> 0 THEN NULL ELSE now() - make_interval(secs => g) + interval '2 seconds' END
         FROM generate_series(1, $4::int) g`,
      [org.organizationId, org.workspaces.map((w) => w.id), [org.ownerId, org.memberId], count],
    );
    // Every integration request ran with the same (empty) configuration: one stored copy.
    await client.query(
      storeConfigSnapshots(`(VALUES ($1::text, '{}'::jsonb)) AS c(org, config)`, 'c.org', 'c.config'),
      [org.organizationId],
    );
    await client.query(
      `INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationName", "integrationType", "configSnapshotId", status, attempts, "nextAttemptAt", "startedAt", "completedAt", "createdAt", "updatedAt")
       SELECT 'ir_bulk' || k || lpad(g::text, 8, '0'), 'dr_bulk' || lpad(g::text, 8, '0'),
              CASE k WHEN 1 THEN 'Internal CRM' ELSE 'App database' END,
              (CASE k WHEN 1 THEN 'WEBHOOK' ELSE 'POSTGRES' END), ${configSnapshotKey('$2::text', `'{}'::jsonb`)},
              (CASE WHEN g % 20 = 0 AND k = 2 THEN 'FAILED' WHEN g % 33 = 0 AND g % 20 <> 0 AND k = 2 THEN 'PENDING' ELSE 'SUCCESS' END)::"RequestStatus",
              1,
              CASE WHEN g % 33 = 0 AND g % 20 <> 0 AND k = 2 THEN now() + interval '1 day' END,
              now() - make_interval(secs => g), now() - make_interval(secs => g) + interval '2 seconds',
              now() - make_interval(secs => g), now() - make_interval(secs => g) + interval '2 seconds'
         FROM generate_series(1, $1::int) g, generate_series(1, 2) k`,
      [count, org.organizationId],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE "DeletionRequest"; ANALYZE "IntegrationRequest"');
    // The load's pages are written out now, not by a checkpoint in the middle of a measurement.
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}
