import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { UNFULFILLED_STATUSES } from '@shared/status-values';
import { createTestEnv, type TestEnv } from '../test/harness';
import { rowsRead as plansRead, tableCopies } from '../test/query-plans';

/**
 * The overview, the digest and the Requests screen's deadline filters count and list the
 * unfulfilled requests by deadline on every load. An organization's history is mostly fulfilled
 * requests whose deadlines have passed: these reads must go through an index that skips them,
 * not through every request the organization ever had. The plans are read on the table with
 * its indexes (from the migrations), filled as such a history, with the statuses sent as the
 * ORM sends them (a cast of a parameter, which a partial index's predicate cannot be proven from).
 */
let env: TestEnv;
let client: pg.Client;
const NOW = `(now() AT TIME ZONE 'UTC')`;
const open = UNFULFILLED_STATUSES.map((status) => `CAST('${status}'::text AS "RequestStatus")`).join(', ');

beforeAll(async () => {
  env = await createTestEnv();
  client = await tableCopies(env.db.url, ['DeletionRequest']);
  // 5,000 requests over a year: all fulfilled and past their deadline but 20 still open (due over
  // the next weeks or overdue); a third CCPA, every receipt confirmed but five.
  await client.query(
    `INSERT INTO "DeletionRequest" (id, "organizationId", "workspaceId", "identifierHmac", channel, "updatedAt", status,
                                    "createdAt", "dueAt", "receiptConfirmBy", "receiptConfirmedAt")
     SELECT 'dr_' || n, 'org_x', 'ws_x', sha256(convert_to(n::text, 'UTF8')), 'API', ${NOW},
            CASE WHEN n <= 20 THEN 'PENDING' ELSE 'SUCCESS' END::"RequestStatus",
            ${NOW} - n * interval '100 minutes',
            ${NOW} + (CASE WHEN n <= 20 THEN 10 - n ELSE -n END) * interval '1 day',
            CASE WHEN n % 3 = 0 THEN ${NOW} END, CASE WHEN n % 3 = 0 AND n > 15 THEN ${NOW} END
       FROM generate_series(1, 5000) AS n`,
  );
  await client.query('ANALYZE "DeletionRequest"');
});
afterAll(async () => {
  await client?.end();
  await env?.close();
});

const rowsRead = (sql: string) => plansRead(client, sql);

it('counts and lists the overdue and soon-due requests without reading the fulfilled history', async () => {
  const unfulfilled = `"organizationId" = 'org_x' AND status IN (${open})`;
  for (const sql of [
    `SELECT count(*) FROM "DeletionRequest" WHERE ${unfulfilled} AND "dueAt" <= ${NOW}`,
    `SELECT id FROM "DeletionRequest" WHERE ${unfulfilled} AND "dueAt" <= ${NOW} ORDER BY "dueAt" LIMIT 10`,
    `SELECT count(*) FROM "DeletionRequest" WHERE ${unfulfilled} AND "dueAt" > ${NOW} AND "dueAt" <= ${NOW} + interval '7 days'`,
    `SELECT id FROM "DeletionRequest" WHERE ${unfulfilled} AND "dueAt" IS NOT NULL ORDER BY "dueAt", id LIMIT 200`,
  ]) {
    const { read, seqScan, plan } = await rowsRead(sql);
    expect(seqScan, plan).toBe(false);
    // 20 requests are unfulfilled, 5,000 in all.
    expect(read, plan).toBeLessThanOrEqual(40);
  }
});

it('finds the receipts still to confirm without reading every request of the organization', async () => {
  const { read, seqScan, plan } = await rowsRead(
    `SELECT count(*) FROM "DeletionRequest"
      WHERE "organizationId" = 'org_x' AND "receiptConfirmBy" IS NOT NULL AND "receiptConfirmedAt" IS NULL
        AND status <> CAST('CANCELED'::text AS "RequestStatus")`,
  );
  expect(seqScan, plan).toBe(false);
  // Five receipts are unconfirmed, 1,666 confirmed.
  expect(read, plan).toBeLessThanOrEqual(10);
});
