import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashHex, identifierHmac } from '../lib/crypto';
import { requestIdsMatching } from '../services/people/matching-requests';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';

const MIGRATION = path.resolve(
  import.meta.dirname,
  '../../../prisma/migrations/20261129193332_identifier_hashes_as_bytes/migration.sql',
);

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

it('keeps every stored hash as the same 32 bytes, and turns a purge marker into the hash the retention policy now writes', async () => {
  const client = new pg.Client({ connectionString: env.db.url });
  await client.connect();
  try {
    // The migration's statements, run on tables of the columns it changes, as they were.
    await client.query(`CREATE SCHEMA identifier_hashes_migration; SET search_path TO identifier_hashes_migration`);
    await client.query(
      `CREATE TABLE "DeletionRequest" (id text, "identifierHmac" text NOT NULL, "requestHash" text);
       CREATE TABLE "RequestIdentifier" (id text, "deletionRequestId" text, "valueHmac" text NOT NULL, "matchHmac" text NOT NULL);
       CREATE UNIQUE INDEX ON "RequestIdentifier" ("deletionRequestId", "valueHmac")`,
    );
    const kept = sha256('a keyed hash');
    const body = sha256('a body');
    await client.query(
      `INSERT INTO "DeletionRequest" VALUES ('dr_kept', $1, $2), ('dr_no_body', $1, NULL), ('dr_purged', 'purged:dr_purged', NULL)`,
      [kept, body],
    );
    await client.query(
      `INSERT INTO "RequestIdentifier" VALUES ('ri_kept', 'dr_kept', $1, $2), ('ri_purged', 'dr_purged', 'purged:ri_purged', 'purged:ri_purged')`,
      [sha256('a value hash'), kept],
    );
    await client.query(fs.readFileSync(MIGRATION, 'utf8'));
    const requests = await client.query<{ id: string; identifier: string; body: string | null; type: string }>(
      `SELECT id, encode("identifierHmac", 'hex') AS identifier, encode("requestHash", 'hex') AS body,
              pg_typeof("identifierHmac")::text AS type
         FROM "DeletionRequest" ORDER BY id`,
    );
    expect(requests.rows).toEqual([
      { id: 'dr_kept', identifier: kept, body, type: 'bytea' },
      { id: 'dr_no_body', identifier: kept, body: null, type: 'bytea' },
      { id: 'dr_purged', identifier: sha256('purged:dr_purged'), body: null, type: 'bytea' },
    ]);
    const identifiers = await client.query<{ id: string; value: string; match: string }>(
      `SELECT id, encode("valueHmac", 'hex') AS value, encode("matchHmac", 'hex') AS match FROM "RequestIdentifier" ORDER BY id`,
    );
    expect(identifiers.rows).toEqual([
      { id: 'ri_kept', value: sha256('a value hash'), match: kept },
      { id: 'ri_purged', value: sha256('purged:ri_purged'), match: sha256('purged:ri_purged') },
    ]);
  } finally {
    await client.end();
  }
});

it('stores what the service writes as bytes that the hash it computes finds', async () => {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const created = await caller.deletionRequests.createInWorkspace({
    workspaceId: org.workspace.id,
    identifier: 'hash-me@example.com',
  });
  const hash = identifierHmac(env.deps.keyring, 'hash-me@example.com');
  expect(await requestIdsMatching(env.db.prisma, org.organization.id, [hash])).toEqual([created.id]);
  expect(await requestIdsMatching(env.db.prisma, org.organization.id, [sha256('hash-me@example.com')])).toEqual([]);
  const stored = await env.db.prisma.deletionRequest.findUniqueOrThrow({
    where: { id: created.id },
    include: { identifiers: true },
  });
  expect(hashHex(stored.identifierHmac)).toBe(hash);
  expect(stored.requestHash).toHaveLength(32);
  expect(stored.identifiers.map((i) => hashHex(i.matchHmac))).toEqual([hash]);
});
