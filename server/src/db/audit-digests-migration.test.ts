import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { auditEntryHash, sealAuditChain, verifyAuditChain } from '../services/audit/audit-chain';
import { recordAudit } from '../services/audit/record-audit';
import { connectDatabase, type Database } from './client';
import { applyMigrations, MIGRATIONS_DIR } from './migrate';

/** The first migration that stores the audit digests as bytes. */
const BYTEA_MIGRATION = '20261128190000_audit_digests_bytea';
const ORGANIZATION = 'org_digests_migration';

const adminUrl = () => inject('adminDatabaseUrl');
const name = `test_digests_${randomBytes(4).toString('hex')}`;
const url = (() => {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
})();
let olderMigrations: string;
let client: pg.Client;
let database: Database | undefined;

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  // A database as it was before the digests became bytes: every earlier migration, no later one.
  olderMigrations = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-older-migrations-'));
  for (const entry of fs.readdirSync(MIGRATIONS_DIR, { withFileTypes: true }))
    if (entry.isDirectory() && entry.name < BYTEA_MIGRATION)
      fs.cpSync(path.join(MIGRATIONS_DIR, entry.name), path.join(olderMigrations, entry.name), { recursive: true });
  await admin(`CREATE DATABASE ${name}`);
  await applyMigrations(url, olderMigrations);
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await database?.close();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  fs.rmSync(olderMigrations, { recursive: true, force: true });
});

interface HexRow {
  id: string;
  organizationId: string;
  deletionRequestId: string | null;
  integrationRequestId: string | null;
  actorType: string;
  actorId: string | null;
  action: string;
  outcome: string | null;
  summary: string;
  detailsDigest: string | null;
  /** ISO, UTC (the column has no time zone). */
  createdAt: string;
}

it('an organization chain sealed with hex digests verifies unchanged once they are stored as bytes, and grows on from its head', async () => {
  await client.query(`INSERT INTO "Organization" (id, name, "updatedAt") VALUES ($1, 'Digests', now())`, [
    ORGANIZATION,
  ]);
  for (let i = 0; i < 5; i++)
    await client.query(
      `INSERT INTO "AuditLog" ("organizationId", "actorType", action, summary, details) VALUES ($1, 'system', 'test.entry', $2, $3)`,
      [ORGANIZATION, `entry ${i}`, i === 2 ? null : JSON.stringify({ subject: `person${i}@example.com`, n: i })],
    );
  // Sealed as the sealer did then: the same hash, its hex text stored.
  const { rows } = await client.query<HexRow>(
    `SELECT id::text, "organizationId", "deletionRequestId", "integrationRequestId", "actorType", "actorId", action, outcome, summary, "detailsDigest",
            to_char("createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
       FROM "AuditLog" ORDER BY id`,
  );
  expect(rows[0]!.detailsDigest).toMatch(/^[0-9a-f]{64}$/);
  let prev: string | null = null;
  for (const [i, row] of rows.entries()) {
    const hash = auditEntryHash(
      { ...row, id: BigInt(row.id), createdAt: new Date(row.createdAt) },
      BigInt(i + 1),
      prev,
    );
    await client.query(`UPDATE "AuditLog" SET "chainSeq" = $2, "prevHash" = $3, hash = $4 WHERE id = $1`, [
      row.id,
      i + 1,
      prev,
      hash,
    ]);
    prev = hash;
  }

  expect(await applyMigrations(url)).toContain(BYTEA_MIGRATION);
  const stored = await client.query<{ digest: number; hash: number }>(
    `SELECT octet_length("detailsDigest") AS digest, octet_length(hash) AS hash FROM "AuditLog" WHERE id = $1`,
    [rows[1]!.id],
  );
  expect(stored.rows[0]).toEqual({ digest: 32, hash: 32 });
  database = connectDatabase(url, 2);
  const db = database.prisma;
  expect(await verifyAuditChain(db, { organizationId: ORGANIZATION })).toMatchObject({
    ok: true,
    verifiedEntries: 5,
    heads: { [ORGANIZATION]: { chainSeq: '5', hash: prev } },
  });

  // New entries get their digest as bytes and link to the head sealed before.
  await recordAudit(db, null, {
    organizationId: ORGANIZATION,
    action: 'test.entry',
    summary: 'after',
    details: { subject: 'later@example.com' },
  });
  await sealAuditChain(db);
  expect(await verifyAuditChain(db, { organizationId: ORGANIZATION })).toMatchObject({ ok: true, verifiedEntries: 6 });
});
