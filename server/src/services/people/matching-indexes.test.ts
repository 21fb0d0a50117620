import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../test/harness';
import { rowsRead as plansRead, tableCopies } from '../../test/query-plans';
import { MATCHING_REQUEST_IDS } from './matching-requests';

/**
 * A search by identifier (and a person's page, and the duplicate check) finds a person's few
 * requests through the identifiers' hash index and the requests' (organization, hash) index,
 * never by reading the organization's whole history. The plans are read on the tables with
 * their indexes (from the migrations), filled as a year of requests with two identifiers each.
 */
let env: TestEnv;
let client: pg.Client;

beforeAll(async () => {
  env = await createTestEnv();
  client = await tableCopies(env.db.url, ['DeletionRequest', 'RequestIdentifier']);
  // 20,000 requests in two organizations; each has its primary identifier and a user id.
  await client.query(
    `INSERT INTO "DeletionRequest" (id, "organizationId", "workspaceId", "identifierHmac", channel, "updatedAt", status, "createdAt")
     SELECT 'dr_' || n, CASE WHEN n % 2 = 0 THEN 'org_x' ELSE 'org_y' END, 'ws_x', convert_to('raw-' || (n / 2), 'UTF8'), 'API',
            now(), 'SUCCESS', now() - n * interval '20 minutes'
       FROM generate_series(1, 20000) AS n`,
  );
  await client.query(
    `INSERT INTO "RequestIdentifier" (id, "deletionRequestId", type, "valueHmac", "matchHmac", "primary", source)
     SELECT 'ri_' || n || '_' || k, 'dr_' || n, CASE k WHEN 0 THEN 'email' ELSE 'user_id' END,
            convert_to('v-' || k || '-' || (n / 2), 'UTF8'), convert_to('m-' || k || '-' || (n / 2), 'UTF8'), k = 0, 'request'
       FROM generate_series(1, 20000) AS n, generate_series(0, 1) AS k`,
  );
  await client.query('ANALYZE "DeletionRequest"; ANALYZE "RequestIdentifier"');
}, 120_000);
afterAll(async () => {
  await client?.end();
  await env?.close();
});

const rowsRead = (sql: string, values: unknown[]) => plansRead(client, sql, values);

it("finds a person's requests by any identifier without reading the organization's history", async () => {
  // The person of requests 4242 and 4243 (one in each organization), by their user id's hash and a raw primary one.
  const hashes = [Buffer.from('m-1-2121'), Buffer.from('raw-2121')];
  const { rows } = await client.query(MATCHING_REQUEST_IDS, ['org_x', hashes]);
  expect(rows.map((row: { id: string }) => row.id)).toEqual(['dr_4242']);
  const { read, seqScan, plan } = await rowsRead(MATCHING_REQUEST_IDS, ['org_x', hashes]);
  expect(seqScan, plan).toBe(false);
  expect(read, plan).toBeLessThan(20);
});

it('then lists those few requests, newest first, by their ids', async () => {
  const { read, seqScan, plan } = await rowsRead(
    `SELECT id FROM "DeletionRequest" WHERE "organizationId" = $1 AND id IN ($2, $3)
      ORDER BY "createdAt" DESC, id DESC LIMIT 26`,
    ['org_x', 'dr_4242', 'dr_4244'],
  );
  expect(seqScan, plan).toBe(false);
  expect(read, plan).toBeLessThan(20);
});
