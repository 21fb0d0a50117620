import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLAIM_STATEMENT } from '../pipeline/store/claim';
import { createTestEnv, type TestEnv } from '../test/harness';
import { genericRowsRead, rowsRead, tableCopies } from '../test/query-plans';

/**
 * The integration requests' indexes by integration, read on the table with its indexes (from the
 * migrations) filled as the history of a busy destination: 20,000 finished requests, a few leased.
 */
let env: TestEnv;
let client: pg.Client;

beforeAll(async () => {
  env = await createTestEnv();
  client = await tableCopies(env.db.url, ['IntegrationRequest', 'Integration']);
  await client.query(
    `INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType",
                                       "configSnapshotId", status, "lockedBy", "lockedUntil", "updatedAt")
     SELECT 'ir_' || n, 'dr_' || n, CASE WHEN n % 2 = 0 THEN 'int_a' ELSE 'int_b' END, 'CRM', 'WEBHOOK', '\\x00',
            CASE WHEN n <= 8 THEN 'PROCESSING' ELSE 'SUCCESS' END::"RequestStatus",
            CASE WHEN n <= 8 THEN 'worker-1' END, CASE WHEN n <= 8 THEN now() + interval '1 minute' END, now()
       FROM generate_series(1, 20000) AS n`,
  );
  await client.query('ANALYZE "IntegrationRequest"');
});
afterAll(async () => {
  await client?.end();
  await env?.close();
});

it("counts an integration's leased requests without reading its history", async () => {
  // The count of a claim for an integration with a concurrency limit (pipeline/store/claim.ts).
  const sql = `SELECT count(*)::int AS leased FROM "IntegrationRequest" l
                WHERE l."integrationId" = $1 AND l."lockedBy" IS NOT NULL AND l."lockedUntil" >= (now() AT TIME ZONE 'UTC')`;
  const { rows } = await client.query<{ leased: number }>(sql, ['int_a']);
  expect(rows[0]!.leased).toBe(4);
  const { read, seqScan, plan } = await rowsRead(client, sql, ['int_a']);
  expect(seqScan, plan).toBe(false);
  expect(read, plan).toBeLessThanOrEqual(8);
});

it("finds an integration's requests through the foreign key's index (an integration deleted)", async () => {
  const { read, seqScan, plan } = await rowsRead(
    client,
    `SELECT id FROM "IntegrationRequest" WHERE "integrationId" = $1`,
    ['int_c'],
  );
  expect(seqScan, plan).toBe(false);
  expect(read, plan).toBe(0);
});

it('claims the oldest due rows without reading every due row, though the statistics say none is due', async () => {
  // A fresh install's first burst, or a backlog imported: due rows arrived after the table's
  // statistics were taken (above: every row finished or leased), so the planner expects a few
  // where thousands wait.
  await client.query(
    `INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType",
                                       "configSnapshotId", status, "nextAttemptAt", "updatedAt")
     SELECT 'due_' || n, 'dr_due_' || n, 'int_a', 'CRM', 'WEBHOOK', '\\x00', 'PENDING',
            now() AT TIME ZONE 'UTC' - n * interval '1 millisecond', now()
       FROM generate_series(1, 3000) AS n`,
  );
  await client.query('BEGIN');
  try {
    // No integration has limits here: the claim runs under its generic plan, as the service runs it then.
    const { read, plan } = await genericRowsRead(client, CLAIM_STATEMENT, ['worker-2', 60, 5, 1]);
    // The rows handed out and the statement's own steps over them; reading the due rows would be 3,000 or more.
    expect(read, plan.slice(0, 4000)).toBeLessThan(100);
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM "IntegrationRequest" WHERE "lockedBy" = 'worker-2' ORDER BY "nextAttemptAt"`,
    );
    expect(rows.map((r) => r.id)).toEqual(['due_3000', 'due_2999', 'due_2998', 'due_2997', 'due_2996']);
  } finally {
    await client.query('ROLLBACK');
  }
});

it('claims a request whose integration was deleted while another destination is at its limit', async () => {
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO "Integration" (id, "workspaceId", name, type, config, "maxConcurrency", "updatedAt")
       VALUES ('int_full', 'ws_1', 'Slow CRM', 'WEBHOOK', '{}', 1, now())`,
    );
    await client.query(
      `INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType",
                                         "configSnapshotId", status, "nextAttemptAt", "lockedBy", "lockedUntil", "updatedAt")
       VALUES ('full_leased', 'dr_f1', 'int_full', 'Slow CRM', 'WEBHOOK', '\\x00', 'PROCESSING', NULL, 'worker-1',
               now() AT TIME ZONE 'UTC' + interval '1 minute', now()),
              ('full_due', 'dr_f2', 'int_full', 'Slow CRM', 'WEBHOOK', '\\x00', 'PENDING',
               now() AT TIME ZONE 'UTC' - interval '2 hours', NULL, NULL, now()),
              ('orphan_due', 'dr_o1', NULL, 'Deleted CRM', 'WEBHOOK', '\\x00', 'PENDING',
               now() AT TIME ZONE 'UTC' - interval '1 hour', NULL, NULL, now())`,
    );
    await client.query(CLAIM_STATEMENT, ['worker-3', 60, 3, 1]);
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM "IntegrationRequest" WHERE "lockedBy" = 'worker-3' ORDER BY "nextAttemptAt"`,
    );
    const claimed = rows.map((r) => r.id);
    expect(claimed[0]).toBe('orphan_due');
    expect(claimed).not.toContain('full_due');
  } finally {
    await client.query('ROLLBACK');
  }
});

it('claims the rows of a destination with room without reading the backlog of one at its limit', async () => {
  // A rate-limited vendor's backlog (an import waiting for Mixpanel's one call a second) ahead of
  // every other destination's rows: its marked rows are not read while it has no free slot.
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO "Integration" (id, "workspaceId", name, type, config, "maxConcurrency", "updatedAt")
       VALUES ('int_busy', 'ws_1', 'Busy CRM', 'WEBHOOK', '{}', 1, now()),
              ('int_room', 'ws_1', 'Roomy CRM', 'WEBHOOK', '{}', 50, now())`,
    );
    await client.query(
      `INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType",
                                         "configSnapshotId", status, "limited", "nextAttemptAt", "lockedBy", "lockedUntil", "updatedAt")
       SELECT 'busy_' || n, 'dr_busy_' || n, 'int_busy', 'Busy CRM', 'WEBHOOK', '\\x00'::bytea,
              CASE WHEN n = 0 THEN 'PROCESSING' ELSE 'PENDING' END::"RequestStatus", true,
              now() AT TIME ZONE 'UTC' - interval '1 hour' + n * interval '1 millisecond',
              CASE WHEN n = 0 THEN 'worker-1' END, CASE WHEN n = 0 THEN now() AT TIME ZONE 'UTC' + interval '1 minute' END, now()
         FROM generate_series(0, 3000) AS n
       UNION ALL
       SELECT 'room_' || n, 'dr_room_' || n, 'int_room', 'Roomy CRM', 'WEBHOOK', '\\x00'::bytea, 'PENDING', true,
              now() AT TIME ZONE 'UTC' - interval '1 minute' + n * interval '1 millisecond', NULL, NULL, now()
         FROM generate_series(1, 3) AS n
       UNION ALL
       SELECT 'free_' || n, 'dr_free_' || n, NULL, 'Deleted CRM', 'WEBHOOK', '\\x00'::bytea, 'PENDING', false,
              now() AT TIME ZONE 'UTC' - interval '30 seconds' + n * interval '1 millisecond', NULL, NULL, now()
         FROM generate_series(1, 2) AS n`,
    );
    // Integrations with limits: the service lets PostgreSQL plan the claim for its parameters.
    const { read, plan } = await rowsRead(client, CLAIM_STATEMENT, ['worker-4', 60, 10, 1]);
    // The rows handed out and the statement's own steps over them (about a hundred); reading the
    // busy destination's backlog would be 3,000 more.
    expect(read, plan.slice(0, 4000)).toBeLessThan(300);
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM "IntegrationRequest" WHERE "lockedBy" = 'worker-4' ORDER BY "nextAttemptAt"`,
    );
    // The oldest due rows first (the earlier test's due rows of int_a fill the rest), none of the busy destination's.
    const claimed = rows.map((r) => r.id);
    expect(claimed.slice(0, 5)).toEqual(['room_1', 'room_2', 'room_3', 'free_1', 'free_2']);
    expect(claimed.filter((id) => id.startsWith('busy_'))).toEqual([]);
  } finally {
    await client.query('ROLLBACK');
  }
});

it('keeps no index twice: every table of the migrated schema has each index definition once', async () => {
  // Two indexes with one definition cost every write twice and serve no read better than one.
  const { rows } = await env.db.pool.query<{ table: string; indexes: string[] }>(
    `SELECT tablename AS table, array_agg(indexname::text ORDER BY indexname) AS indexes
       FROM pg_indexes
      WHERE schemaname = 'public'
      GROUP BY tablename, regexp_replace(indexdef, '^CREATE (UNIQUE )?INDEX \\S+ ', '')
     HAVING count(*) > 1`,
  );
  expect(rows).toEqual([]);
});
