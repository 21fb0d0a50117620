import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { STEP_AUDIT_ACTIONS } from '@shared/audit-actions';
import { createTestEnv, type TestEnv } from '../test/harness';
import { genericRowsRead, tableCopies } from '../test/query-plans';

/**
 * An integration request's audit entries have no index of their own: every read of them names
 * their request too and goes through the request's index. These are the reads the worker and the
 * notifier make on every step (the fold of a repeated status poll, the last attempt behind a
 * failure notice) and the certificate's fallback for evidence. Their plans are read on the audit
 * log's table with its indexes (from the migrations), filled as a history of many requests.
 */
let env: TestEnv;
let client: pg.Client;

beforeAll(async () => {
  env = await createTestEnv();
  client = await tableCopies(env.db.url, ['AuditLog']);
  // 10,000 requests, three integration requests each: a creation entry, a step entry per
  // integration request and a completion, 50,000 entries in all.
  await client.query(
    `INSERT INTO "AuditLog" ("organizationId", "deletionRequestId", "integrationRequestId", "actorType", action, outcome, summary, details)
     SELECT 'org_x', 'dr_' || r, CASE WHEN e BETWEEN 1 AND 3 THEN 'ir_' || r || '_' || e END, 'system',
            CASE e WHEN 0 THEN 'request.created' WHEN 4 THEN 'request.completed' ELSE 'deletion.requested' END,
            CASE WHEN e BETWEEN 1 AND 3 THEN 'SUCCESS' END, 'entry', jsonb_build_object('result', 'success')
       FROM generate_series(1, 10000) AS r, generate_series(0, 4) AS e ORDER BY r, e`,
  );
  await client.query('ANALYZE "AuditLog"');
});
afterAll(async () => {
  await client?.end();
  await env?.close();
});

/** What a statement read under its generic plan, as the service's prepared statements get it. */
const rowsRead = (sql: string, params: string[]) => genericRowsRead(client, sql, params);

it('finds the latest entry of an integration request through its request', async () => {
  // The fold of a repeated status poll (pipeline/store/finish.ts).
  const { read, seqScan, plan } = await rowsRead(
    `SELECT max(l.id) FROM "AuditLog" l WHERE l."deletionRequestId" = $1 AND l."integrationRequestId" = $2`,
    ['dr_7777', 'ir_7777_2'],
  );
  expect(seqScan, plan).toBe(false);
  expect(read, plan).toBeLessThanOrEqual(5);
});

it('finds the last attempt of an integration request and the evidence of several through their request', async () => {
  const actions = `ARRAY[${STEP_AUDIT_ACTIONS.map((a) => `'${a}'`).join(', ')}]`;
  // The notifier's last attempt (services/notifications/notify.ts).
  const last = await rowsRead(
    `SELECT details FROM "AuditLog" WHERE "deletionRequestId" = $1 AND "integrationRequestId" = $2
        AND action = ANY(${actions}) ORDER BY id DESC LIMIT 1`,
    ['dr_4242', 'ir_4242_1'],
  );
  expect(last.seqScan, last.plan).toBe(false);
  expect(last.read, last.plan).toBeLessThanOrEqual(5);
  // The certificate's evidence from the trail (services/certificates/build-certificate.ts).
  const evidence = await rowsRead(
    `SELECT "integrationRequestId", details FROM "AuditLog"
      WHERE "organizationId" = $1 AND "deletionRequestId" = $2 AND "integrationRequestId" = ANY($3::text[])
        AND outcome = 'SUCCESS' AND action = ANY(${actions}) ORDER BY id`,
    ['org_x', 'dr_99', '{ir_99_1,ir_99_3}'],
  );
  expect(evidence.seqScan, evidence.plan).toBe(false);
  expect(evidence.read, evidence.plan).toBeLessThanOrEqual(5);
});

it("reaches an entry by its organization and id, and lists an organization's log newest first, through the primary key", async () => {
  // The fold's and the sealer's updates name the entry by both (pipeline/store/finish.ts, services/audit/audit-chain.ts).
  const one = await rowsRead(`SELECT summary FROM "AuditLog" WHERE "organizationId" = $1 AND id = $2::bigint`, [
    'org_x',
    '31415',
  ]);
  expect(one.seqScan, one.plan).toBe(false);
  expect(one.read, one.plan).toBe(1);
  // The audit log screen's page after a cursor (services/dashboard/list-audit-log.ts).
  const page = await rowsRead(
    `SELECT id FROM "AuditLog" WHERE "organizationId" = $1 AND id < $2::bigint ORDER BY id DESC LIMIT 51`,
    ['org_x', '40000'],
  );
  expect(page.seqScan, page.plan).toBe(false);
  expect(page.read, page.plan).toBe(51);
});

it("walks an organization's sealed chain by the primary key, a page at a time (the verifier)", async () => {
  await client.query(`UPDATE "AuditLog" SET "chainSeq" = id WHERE id <= 45000`);
  await client.query('ANALYZE "AuditLog"');
  // services/audit/audit-chain.ts: the page after the last entry read, in id order.
  const page = await rowsRead(
    `SELECT id, "chainSeq" FROM "AuditLog" WHERE "organizationId" = $1 AND id > $2::bigint AND "chainSeq" IS NOT NULL ORDER BY id LIMIT 2000`,
    ['org_x', '20000'],
  );
  expect(page.seqScan, page.plan).toBe(false);
  expect(page.read, page.plan).toBe(2000);
});
