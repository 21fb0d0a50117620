import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { receiptConfirmByFor } from '@shared/deadlines';
import { dateIn } from '@shared/zoned-days';
import { createTestEnv, type TestEnv } from '../test/harness';

const MIGRATION = path.resolve(
  import.meta.dirname,
  '../../../prisma/migrations/20261127160000_request_receipt_confirmation/migration.sql',
);

const CALIFORNIA = 'America/Los_Angeles';
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

it('gives the CCPA requests stored before it whose 10 business days have not run out the date new ones get, and no other request one', async () => {
  const client = new pg.Client({ connectionString: env.db.url });
  await client.connect();
  try {
    // The migration's statements, run on a table of the same columns in a schema of its own.
    await client.query(`CREATE SCHEMA receipt_migration; SET search_path TO receipt_migration`);
    await client.query(
      `CREATE TABLE "DeletionRequest" (id text, regulation text, "createdAt" TIMESTAMP(3), "receivedAt" TIMESTAMP(3))`,
    );
    // Received over the last week at every hour of a California day and night (the evening there
    // is the next day in UTC), with and without an earlier receipt; and long ago.
    const now = Date.now();
    const rows: [string, string | null, string, string | null][] = [];
    for (let n = 0; n < 14; n++) {
      const at = new Date(now - n * 11 * 3_600_000 - 1_234).toISOString();
      rows.push([`ccpa-${n}`, 'CCPA', at, null]);
      rows.push([`ccpa-received-${n}`, 'CCPA', new Date(now).toISOString(), at]);
    }
    rows.push(
      ['ccpa-long-ago', 'CCPA', new Date(now - 40 * 86_400_000).toISOString(), null],
      ['gdpr', 'GDPR', new Date(now - 86_400_000).toISOString(), null],
      ['none', null, new Date(now - 86_400_000).toISOString(), null],
    );
    for (const row of rows)
      await client.query(
        `INSERT INTO "DeletionRequest" VALUES ($1, $2, ($3::timestamptz AT TIME ZONE 'UTC'), ($4::timestamptz AT TIME ZONE 'UTC'))`,
        row,
      );
    await client.query(fs.readFileSync(MIGRATION, 'utf8'));
    const after = await client.query<{ id: string; by: string | null }>(
      `SELECT id, to_char("receiptConfirmBy", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS by FROM "DeletionRequest" ORDER BY id`,
    );
    const expected = Object.fromEntries(
      rows.map(([id, regulation, createdAt, receivedAt]) => {
        const by = receiptConfirmByFor(regulation ?? '', new Date(receivedAt ?? createdAt));
        return [id, by && by.getTime() > now ? dateIn(by, CALIFORNIA) : null];
      }),
    );
    // The migration kept the time of receipt; new requests are due by the end of that day there: the same day.
    const given = after.rows.map((r) => [r.id, r.by && dateIn(new Date(r.by), CALIFORNIA)]);
    expect(Object.fromEntries(given)).toEqual(expected);
    expect(Object.values(expected).filter(Boolean)).toHaveLength(28);
    expect(expected['ccpa-long-ago']).toBeNull();
    expect(expected.gdpr).toBeNull();
  } finally {
    await client.end();
  }
});
