import { createHmac, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { snowflakeConfigSchema } from '@shared/integrations';
import { driverContext, TEST_HASH_KEY } from '../../test/driver-context';
import { gitBlobId, VendorOpenApi } from '../../test/fakes/vendor-openapi';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildCertificate } from '../../services/certificates/build-certificate';
import { certificateJsonSchema } from '../../services/certificates/certificate-schema';
import { sealAuditChain } from '../../services/audit/audit-chain';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { snowflakeDriver } from './driver';
import { startSnowflakeFake } from './fake';
import { keypairJwt, privateKeyOf, publicKeyFingerprint } from './jwt';

// Snowflake's own OpenAPI document of the SQL API (see SOURCES.md): every request the driver
// sends to the fake, and every answer the fake gives, is validated against it.
const DOCUMENT = new URL('./vendor/sqlapi.yaml', import.meta.url);
/** `git hash-object` of specifications/sqlapi.yaml in github.com/snowflakedb/snowflake-rest-api-specs (commit 42671a9). */
const DOCUMENT_BLOB = 'c03739afba4403e43208ca63b2d08337da98a934';
/**
 * `retry=true` is not in the document: Snowflake's page "Submitting a request to execute SQL
 * statements" names it for resubmitting a request id (SOURCES.md quotes it).
 */
const documentedElsewhere = (problem: string) => problem.includes('query parameter "retry" is not in the document');

const ACCOUNT = 'myorg-deletions';
const USER = 'deleter';
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
let fake: Awaited<ReturnType<typeof startSnowflakeFake>>;
let contract: VendorOpenApi;
let checked = 0;

const secrets = (privateKey = keys.privateKey) => ({
  account: ACCOUNT,
  user: USER,
  privateKey,
  warehouse: fake.warehouse,
  database: fake.database,
  endpoint: fake.url,
});
const RULES = [
  { schema: 'PUBLIC', table: 'EVENTS', identifierColumns: ['USER_EMAIL'], action: 'delete' },
  { schema: 'CRM', table: 'CONTACTS', identifierColumns: ['EMAIL'], action: 'hash', columns: ['EMAIL'] },
  { schema: 'PUBLIC', table: 'USERS', identifierColumns: ['EMAIL'], action: 'set_null', columns: ['NAME', 'PHONE'] },
];
const config = (extra: Record<string, unknown> = {}) => snowflakeConfigSchema.parse({ rules: RULES, ...extra });
const ctx = (identifier: string, extra: Record<string, unknown> = {}, keyPem?: string) =>
  driverContext('SNOWFLAKE', config(extra), secrets(keyPem), { identifier });

/** Every exchange since the last check conforms to sqlapi.yaml. */
function expectConforming() {
  const calls = fake.calls.slice(checked);
  checked = fake.calls.length;
  expect(calls.length).toBeGreaterThan(0);
  expect(contract.checkCalls(calls).filter((p) => !documentedElsewhere(p))).toEqual([]);
  return calls;
}

async function seed(email: string) {
  await fake.sql(`INSERT INTO "PUBLIC"."USERS" VALUES (1, $1, 'Jane', '+1 555')`, [email]);
  await fake.sql(`INSERT INTO "PUBLIC"."EVENTS" VALUES ($1, 'page_view'), ($1, 'click')`, [email]);
  await fake.sql(`INSERT INTO "CRM"."CONTACTS" VALUES ($1, 'vip')`, [email]);
}

beforeAll(async () => {
  contract = await VendorOpenApi.load(DOCUMENT);
  fake = await startSnowflakeFake({
    adminDatabaseUrl: inject('adminDatabaseUrl'),
    account: ACCOUNT,
    user: USER,
    publicKey: keys.publicKey,
  });
  await fake.sql(`
    CREATE SCHEMA "PUBLIC"; CREATE SCHEMA "CRM";
    CREATE TABLE "PUBLIC"."USERS" ("ID" bigint, "EMAIL" varchar(255) NOT NULL, "NAME" text, "PHONE" text);
    CREATE TABLE "PUBLIC"."EVENTS" ("USER_EMAIL" text, "KIND" text NOT NULL);
    CREATE TABLE "CRM"."CONTACTS" ("EMAIL" text, "NOTE" text);
  `);
  await fake.setRetention('PUBLIC', 'USERS', 30);
  await fake.setRetention('CRM', 'CONTACTS', 90);
});
afterAll(() => fake?.close());
beforeEach(() => {
  Object.assign(fake.state, { failNext: [], runningPolls: 0, hang: false, partitionRows: 1000 });
  checked = fake.calls.length;
});

describe('Snowflake SQL API contract (vendor/sqlapi.yaml)', () => {
  it("is Snowflake's document, unchanged, with the three statement operations", () => {
    expect(gitBlobId(readFileSync(DOCUMENT))).toBe(DOCUMENT_BLOB);
    expect(contract.version).toBe('2.0.0');
    expect(contract.operations()).toEqual(
      expect.arrayContaining([
        'POST /api/v2/statements',
        'GET /api/v2/statements/{statementHandle}',
        'POST /api/v2/statements/{statementHandle}/cancel',
      ]),
    );
  });

  it('authenticates with a key-pair JWT: RS256, iss ACCOUNT.USER.SHA256:fingerprint, sub ACCOUNT.USER, at most an hour', async () => {
    const now = Date.now();
    const [header, payload] = keypairJwt(secrets(), now)
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    const fingerprint = publicKeyFingerprint(privateKeyOf(keys.privateKey));
    expect(fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}=$/);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(payload).toEqual({
      iss: `MYORG-DELETIONS.DELETER.${fingerprint}`,
      sub: 'MYORG-DELETIONS.DELETER',
      iat: Math.floor(now / 1000),
      exp: Math.floor(now / 1000) + 59 * 60,
    });
    // A key flattened onto one line by a form field still signs.
    const flattened = keys.privateKey.replace(/\n/g, ' ');
    expect(await snowflakeDriver.testConnection(ctx('x', {}, flattened))).toMatchObject({ ok: true });
    const calls = expectConforming();
    expect(calls.every((c) => c.headers['x-snowflake-authorization-token-type'] === 'KEYPAIR_JWT')).toBe(true);

    // Another user's key: the fake checks the signature against the user's public key and refuses.
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const refused = await snowflakeDriver.testConnection(ctx('x', {}, stranger));
    expect(refused.ok).toBe(false);
    expect(refused.message).toContain('refused the key-pair authentication');
    expect(fake.state.refused.at(-1)).toBe('JWT token is invalid.');
    expectConforming();
  });

  it('discovers tables and columns through INFORMATION_SCHEMA, reading a result of several partitions', async () => {
    fake.state.partitionRows = 3;
    const { trail: _trail, ...adminCtx } = ctx('x');
    const tables = await snowflakeDriver.discover!({ ...adminCtx, trail: [] });
    expect(tables.map((t) => `${t.schema}.${t.table}`)).toEqual(['CRM.CONTACTS', 'PUBLIC.EVENTS', 'PUBLIC.USERS']);
    expect(tables.find((t) => t.table === 'USERS')!.columns).toEqual([
      { name: 'ID', dataType: 'NUMBER', nullable: true },
      { name: 'EMAIL', dataType: 'TEXT', nullable: false, maxLength: 255 },
      { name: 'NAME', dataType: 'TEXT', nullable: true, maxLength: 16777216 },
      { name: 'PHONE', dataType: 'TEXT', nullable: true, maxLength: 16777216 },
    ]);
    const calls = expectConforming();
    expect(calls.filter((c) => c.method === 'GET' && c.query.get('partition')).length).toBeGreaterThanOrEqual(2);
  });

  it('a dry run counts with bind variables only, polling a statement that is still running (202)', async () => {
    const identifier = 'dry.run@example.com';
    await seed(identifier);
    fake.state.runningPolls = 2;
    const c = ctx(identifier);
    const result = await snowflakeDriver.dryRun!(c);
    expect(result.rules.map((r) => [r.rule, r.rows])).toEqual([
      ['delete on PUBLIC.EVENTS', 2],
      ['hash on CRM.CONTACTS', 1],
      ['set_null on PUBLIC.USERS', 1],
    ]);
    expect(JSON.stringify(result.statements)).not.toContain(identifier);
    const calls = expectConforming();
    expect(calls.filter((x) => x.reply?.status === 202).length).toBeGreaterThanOrEqual(6);
    expect(
      calls.filter((x) => x.method === 'GET').every((x) => /^\/api\/v2\/statements\/[0-9a-f-]{36}$/.test(x.path)),
    ).toBe(true);
    // What the trail keeps of the requests: statements and binding types, never the bound values.
    expect(JSON.stringify(c.trail)).not.toContain(identifier);
    expect(
      await fake.sql(`SELECT count(*)::int AS n FROM "PUBLIC"."EVENTS" WHERE "USER_EMAIL" = $1`, [identifier]),
    ).toMatchObject({ rows: [{ n: 2 }] });
  });

  it('deletes, hashes under the integration key and nulls to SUCCESS, retrying 429 and 503 under the same request id; a look-alike stays', async () => {
    const identifier = 'jane.roe@example.com';
    await seed(identifier);
    await seed('Jane.Roe@example.com');
    fake.state.failNext = [429, 503];
    const c = ctx(identifier);
    const outcome = await snowflakeDriver.requestDeletion(c);
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: {
        changed: { 'delete on PUBLIC.EVENTS': 2, 'hash on CRM.CONTACTS': 1, 'set_null on PUBLIC.USERS': 1 },
        remaining: { 'delete on PUBLIC.EVENTS': 0, 'hash on CRM.CONTACTS': 0, 'set_null on PUBLIC.USERS': 0 },
        timeTravel: {
          retentionDays: { 'PUBLIC.EVENTS': 1, 'CRM.CONTACTS': 90, 'PUBLIC.USERS': 30 },
          longestDays: 90,
          failSafeDays: 7,
        },
      },
    });
    expect(outcome.kind === 'success' && outcome.message).toContain(
      'recoverable through Time Travel for up to 90 day(s) (longest: CRM.CONTACTS), then in Fail-safe for 7 more days',
    );

    const calls = expectConforming();
    const resubmitted = calls.filter((x) => x.query.get('retry') === 'true');
    expect(resubmitted.length).toBe(2);
    const first = calls.find((x) => x.reply?.status === 429)!;
    expect(resubmitted.every((x) => x.query.get('requestId') === first.query.get('requestId'))).toBe(true);
    expect(fake.state.executed.filter((s) => s.startsWith('DELETE')).length).toBe(1);

    const hmac = `hmac:${createHmac('sha256', TEST_HASH_KEY).update(identifier).digest('hex')}`;
    const rows = async (sql: string, values: unknown[]) => (await fake.sql(sql, values)).rows;
    expect(
      await rows(`SELECT "EMAIL", "NOTE" FROM "CRM"."CONTACTS" WHERE "NOTE" = 'vip' AND "EMAIL" LIKE 'hmac:%'`, []),
    ).toEqual([{ EMAIL: hmac, NOTE: 'vip' }]);
    expect(await rows(`SELECT "NAME", "PHONE" FROM "PUBLIC"."USERS" WHERE "EMAIL" = $1`, [identifier])).toEqual([
      { NAME: null, PHONE: null },
    ]);
    expect(
      await rows(`SELECT count(*)::int AS n FROM "PUBLIC"."EVENTS" WHERE "USER_EMAIL" = $1`, [identifier]),
    ).toEqual([{ n: 0 }]);
    // The look-alike (another case) keeps every value.
    expect(await rows(`SELECT "NAME" FROM "PUBLIC"."USERS" WHERE "EMAIL" = 'Jane.Roe@example.com'`, [])).toEqual([
      { NAME: 'Jane' },
    ]);
    expect(
      await rows(`SELECT count(*)::int AS n FROM "PUBLIC"."EVENTS" WHERE "USER_EMAIL" = 'Jane.Roe@example.com'`, []),
    ).toEqual([{ n: 2 }]);
    expect(
      await rows(`SELECT count(*)::int AS n FROM "CRM"."CONTACTS" WHERE "EMAIL" = 'Jane.Roe@example.com'`, []),
    ).toEqual([{ n: 1 }]);

    // Neither the identifier nor the hash key's padded forms are in what the trail records.
    const recorded = JSON.stringify(c.trail);
    expect(recorded).not.toContain(identifier);
    expect(recorded).toContain('[bound]');
    expect(recorded).not.toMatch(/[0-9a-f]{128}/);

    // Re-verification reads the same proof: nothing came back.
    expect(await snowflakeDriver.reverify!(ctx(identifier))).toMatchObject({ remaining: 0 });
    expectConforming();
  });

  it('cancels a statement still running at its timeout, and reports a transient failure', async () => {
    fake.state.hang = true;
    await expect(snowflakeDriver.dryRun!(ctx('slow@example.com', { statementTimeoutMs: 500 }))).rejects.toThrow(
      /still running after 500 ms; it was cancelled/,
    );
    const calls = expectConforming();
    const cancel = calls.find((x) => x.path.endsWith('/cancel'))!;
    expect(cancel.reply?.status).toBe(200);
    expect(fake.state.canceled).toContain(cancel.path.split('/')[4]);
  });
});

describe('Snowflake integration through the service', () => {
  let env: TestEnv;
  let org: Awaited<ReturnType<typeof seedOrganization>>;
  let caller: ReturnType<typeof callerFor>['caller'];
  let accountId: string;

  beforeAll(async () => {
    env = await createTestEnv(FAST_ENGINE_CONFIG);
    org = await seedOrganization(env.deps, 'snowflake');
    caller = callerFor(env.deps, { pat: org.pat }).caller;
    accountId = (
      await caller.accounts.create({
        name: 'warehouse',
        integrationType: 'SNOWFLAKE',
        type: 'SNOWFLAKE',
        secrets: secrets(),
      })
    ).id;
  });
  afterAll(() => env?.close());

  it('keeps the private key secret: the account shows its public fields only', async () => {
    const accounts = await caller.accounts.list();
    const shown = JSON.stringify(accounts.find((a) => a.id === accountId));
    expect(shown).toContain(fake.database);
    expect(shown).not.toContain('PRIVATE KEY');
    expect(shown).not.toContain(keys.privateKey.split('\n')[1]);
  });

  it('discovers, dry-runs and runs a request to SUCCESS; the Time Travel period reaches the request and its certificate', async () => {
    const tables = await caller.integrations.discoverSchema({ accountId });
    expect(tables.map((t) => `${t.schema}.${t.table}`)).toEqual(['CRM.CONTACTS', 'PUBLIC.EVENTS', 'PUBLIC.USERS']);
    const identifier = 'service.subject@example.com';
    await seed(identifier);
    const dry = await caller.integrations.dryRun({ accountId, identifier, config: { rules: RULES } });
    expect(dry.rules.map((r) => r.rows)).toEqual([2, 1, 1]);

    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Warehouse',
      type: 'SNOWFLAKE',
      accountId,
      config: { rules: RULES },
    });
    // A rule on a column Snowflake does not have is refused when saved, against the live schema.
    await expect(
      caller.integrations.create({
        workspaceId: org.workspace.id,
        name: 'Broken',
        type: 'SNOWFLAKE',
        accountId,
        config: { rules: [{ schema: 'PUBLIC', table: 'USERS', identifierColumns: ['MAIL'], action: 'delete' }] },
      }),
    ).rejects.toMatchObject({ message: 'Column MAIL does not exist' });

    const created = await caller.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
    const worker = await startTestWorker(env);
    try {
      expect((await waitForRequest(env, created.id)).status).toBe('SUCCESS');
    } finally {
      await worker.stop();
    }
    const notice =
      'recoverable through Time Travel for up to 90 day(s) (longest: CRM.CONTACTS), then in Fail-safe for 7 more days';
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const step = trail.find((e) => e.action === 'deletion.requested')!;
    expect(step.summary).toContain(notice);
    expect(JSON.stringify(step.details)).not.toContain(identifier);

    await sealAuditChain(env.deps.prisma);
    const signed = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, created.id);
    const destination = (signed.certificate as any).destinations[0];
    expect(destination.evidence).toMatchObject({
      verification: { passed: true },
      retainedBy: { longestDays: 90, failSafeDays: 7, notice: expect.stringContaining(notice) },
    });
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    expect(ajv.validate(certificateJsonSchema, signed), ajv.errorsText(ajv.errors)).toBe(true);
    expectConforming();
  });
});
