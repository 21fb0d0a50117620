import { createHmac } from 'node:crypto';
import { BigQuery } from '@google-cloud/bigquery';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GOOGLE_TOKEN_URI } from '@shared/integrations/bigquery';
import { bigqueryConfigSchema, type BigqueryConfig } from '@shared/integrations/bigquery';
import { createCustomerDatabase } from '../../test/customer-db';
import { driverContext, TEST_HASH_KEY } from '../../test/driver-context';
import { hmacPads } from '../sql/keyed-hash';
import { PermanentError } from '../types';
import { bigqueryDriver } from './driver';
import { bigqueryDiscoveryValidators } from './discovery-schema';
import { startBigqueryFake } from './fake';

let fake: Awaited<ReturnType<typeof startBigqueryFake>>;
const JANE = 'jane@example.com';

beforeAll(async () => {
  fake = await startBigqueryFake({ database: await createCustomerDatabase() });
  await fake.createDataset('crm', { location: 'EU', maxTimeTravelHours: 48 });
  await fake.createDataset('web', { location: 'EU', maxTimeTravelHours: 72 });
  await fake.createDataset('archive', { location: 'US' });
  await fake.sql(`
    CREATE TABLE crm.users (id bigint, email text, name text, phone varchar(40));
    CREATE TABLE crm.orders (id bigint, customer_email text, shipping_address text, total numeric);
    CREATE TABLE web.events (distinct_id text, user_ref bigint, kind text);
    CREATE TABLE archive.old_users (email text);
  `);
}, 60_000);
afterAll(() => fake?.close());

beforeEach(async () => {
  await fake.sql('TRUNCATE crm.users, crm.orders, web.events');
  fake.state.pendingPolls = 0;
  fake.state.rateLimitNext = 0;
  // Jane, and three look-alikes that must stay: another case, a trailing space, another person.
  for (const [id, email] of [
    [1, JANE],
    [2, 'Jane@example.com'],
    [3, `${JANE} `],
    [4, 'john@example.com'],
  ] as const) {
    await fake.sql(`INSERT INTO crm.users VALUES ($1, $2, 'Name', '+1 555')`, [id, email]);
    await fake.sql(`INSERT INTO crm.orders VALUES ($1, $2, '1 Main St', 10)`, [id * 10, email]);
    await fake.sql(`INSERT INTO web.events VALUES ($1, $2, 'page_view'), ($1, $2, 'click')`, [email, id]);
  }
});

const config = (overrides: Partial<BigqueryConfig> = {}): BigqueryConfig =>
  bigqueryConfigSchema.parse({
    projectId: fake.projectId,
    location: 'EU',
    baseUrl: fake.url,
    tokenUri: fake.tokenUri,
    rules: [
      { schema: 'web', table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
      {
        schema: 'crm',
        table: 'orders',
        identifierColumns: ['customer_email'],
        action: 'set_null',
        columns: ['shipping_address'],
      },
      {
        schema: 'crm',
        table: 'orders',
        identifierColumns: ['customer_email'],
        action: 'hash',
        columns: ['customer_email'],
      },
      { schema: 'crm', table: 'users', identifierColumns: ['email', 'id'], action: 'delete' },
    ],
    ...overrides,
  });
const ctx = (c: BigqueryConfig = config(), identifier = JANE) =>
  driverContext('BIGQUERY', c, { serviceAccountKey: fake.keyJson }, { identifier });

const rows = async (sql: string) => (await fake.sql(sql)).rows as Record<string, unknown>[];

describe('BigQuery contract (REST API v2, checked against Google’s discovery document)', () => {
  it('exchanges the service account key for a token once, and keeps the assertion and the token out of the trail', async () => {
    const before = fake.state.exchanges;
    const first = ctx();
    const tables = await bigqueryDriver.discover!({ ...first, config: config() } as never);
    await bigqueryDriver.discover!({ ...ctx(), config: config() } as never);
    expect(fake.state.exchanges).toBe(before + 1);
    expect(tables.map((t) => `${t.schema}.${t.table}`)).toEqual(['crm.orders', 'crm.users', 'web.events']);
    expect(tables.find((t) => t.table === 'users')!.columns).toEqual([
      { name: 'id', dataType: 'INT64', nullable: true },
      { name: 'email', dataType: 'STRING', nullable: true },
      { name: 'name', dataType: 'STRING', nullable: true },
      { name: 'phone', dataType: 'STRING', maxLength: 40, nullable: true },
    ]);
    const recorded = JSON.stringify(first.trail);
    for (const token of fake.state.tokens) expect(recorded).not.toContain(token);
    expect(recorded).not.toContain('PRIVATE KEY');
    expect(recorded).not.toMatch(/assertion=ey/);
  });

  it('refuses a key Google would not accept', async () => {
    const other = driverContext('BIGQUERY', config(), { serviceAccountKey: '{"type":"authorized_user"}' });
    await expect(bigqueryDriver.discover!({ ...other, config: config() } as never)).rejects.toThrow(
      /not a JSON key of a service account/,
    );
  });

  it('dry-runs: rows per rule and the bytes each statement reads; a ceiling below them is refused (422 at the API)', async () => {
    const result = await bigqueryDriver.dryRun!({ ...ctx(), identifier: JANE });
    expect(result.rules.map((r) => [r.rule.replace(/\d+ bytes/, 'N bytes'), r.rows])).toEqual([
      ['delete on web.events (reads N bytes)', 2],
      ['set_null on crm.orders (reads N bytes)', 1],
      ['hash on crm.orders (reads N bytes)', 1],
      ['delete on crm.users (reads N bytes)', 1],
    ]);
    expect(result.statements.join('\n')).not.toContain(JANE);
    const tight = { ...ctx(config({ maxBytesScanned: 10 })), identifier: JANE };
    await expect(bigqueryDriver.dryRun!(tight)).rejects.toThrow(
      /delete on web\.events would read \d+ bytes, more than this integration's ceiling of 10 bytes/,
    );
    await expect(bigqueryDriver.dryRun!(tight)).rejects.toBeInstanceOf(PermanentError);
    // Save time: the same check, as issues of the form.
    const issues = await bigqueryDriver.validateConfig!(ctx(config({ maxBytesScanned: 10 })));
    expect(issues.map((i) => i.path)).toEqual([
      ['rules', 0],
      ['rules', 1],
      ['rules', 2],
      ['rules', 3],
    ]);
    expect(await bigqueryDriver.validateConfig!(ctx())).toEqual([]);
  });

  it('deletes, nulls and hashes to SUCCESS, verified, stating the time travel period read from the warehouse; look-alikes stay', async () => {
    const run = ctx();
    const outcome = await bigqueryDriver.requestDeletion(run);
    expect(outcome).toMatchObject({ kind: 'success' });
    if (outcome.kind !== 'success') return;
    expect(outcome.message).toMatch(/^5 row\(s\) changed; verified that no matching rows remain\./);
    // web sets 72 hours, crm 48: the longest applies to the request.
    expect(outcome.message).toContain('time travel for 72 hours (3 days), then for 7 days of fail-safe');
    expect(outcome.evidence).toMatchObject({
      changed: {
        'delete on web.events': 2,
        'set_null on crm.orders': 1,
        'hash on crm.orders': 1,
        'delete on crm.users': 1,
      },
      remaining: { 'delete on web.events': 0, 'delete on crm.users': 0 },
      timeTravel: { notice: expect.stringContaining('72 hours'), longestDays: 3, failSafeDays: 7 },
    });
    expect(await rows(`SELECT email FROM crm.users ORDER BY id`)).toEqual([
      { email: 'Jane@example.com' },
      { email: `${JANE} ` },
      { email: 'john@example.com' },
    ]);
    expect(await rows(`SELECT count(*)::int AS n FROM web.events`)).toEqual([{ n: 6 }]);
    const keyed = createHmac('sha256', TEST_HASH_KEY).update(JANE, 'utf8').digest('hex');
    expect(await rows(`SELECT customer_email, shipping_address FROM crm.orders ORDER BY id`)).toEqual([
      { customer_email: `hmac:${keyed}`, shipping_address: null },
      { customer_email: 'Jane@example.com', shipping_address: '1 Main St' },
      { customer_email: `${JANE} `, shipping_address: '1 Main St' },
      { customer_email: 'john@example.com', shipping_address: '1 Main St' },
    ]);
    // The trail has the statements, never the identifier or the hash key's padded forms.
    const recorded = JSON.stringify(run.trail);
    expect(recorded).not.toContain(JANE);
    for (const pad of Object.values(hmacPads(TEST_HASH_KEY))) expect(recorded).not.toContain(pad);
    expect(run.trail.filter((t) => t.kind === 'sql').map((t) => (t as { statement: string }).statement)).toContain(
      'DELETE FROM `web`.`events` WHERE ((`distinct_id` = @p1 AND CAST(`distinct_id` AS BYTES) = CAST(@p2 AS BYTES)))',
    );
    // Once more: nothing left to change, and still SUCCESS.
    expect(await bigqueryDriver.requestDeletion(ctx())).toMatchObject({
      kind: 'success',
      message: expect.stringMatching(/^0 row/),
    });
    expect(await bigqueryDriver.reverify!(ctx())).toMatchObject({ remaining: 0 });
  });

  it('polls a job until it is DONE', async () => {
    fake.state.pendingPolls = 2;
    const from = fake.calls.length;
    expect(await bigqueryDriver.requestDeletion(ctx())).toMatchObject({ kind: 'success' });
    const polls = fake.calls.slice(from).filter((c) => c.method === 'GET' && /\/jobs\//.test(c.path));
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(polls.every((c) => c.query.get('location') === 'EU')).toBe(true);
  });

  it('waits and tries again after 403 rateLimitExceeded, as Google advises (exponential backoff)', async () => {
    fake.state.rateLimitNext = 2;
    const run = ctx();
    expect(await bigqueryDriver.requestDeletion(run)).toMatchObject({ kind: 'success' });
    const statuses = run.trail.flatMap((t) => (t.kind === 'http' ? [t.response?.status] : []));
    expect(statuses.filter((s) => s === 403)).toHaveLength(2);
    expect(await rows(`SELECT count(*)::int AS n FROM crm.users WHERE email = '${JANE}'`)).toEqual([{ n: 0 }]);
  }, 20_000);

  it('refuses at run time a rule whose statement would read more than the ceiling, changing nothing', async () => {
    await expect(bigqueryDriver.requestDeletion(ctx(config({ maxBytesScanned: 10 })))).rejects.toThrow(
      /ceiling of 10 bytes \(maxBytesScanned\); nothing was run/,
    );
    expect(await rows(`SELECT count(*)::int AS n FROM web.events`)).toEqual([{ n: 8 }]);
  });

  it('names a dataset outside the configured location as BigQuery does', async () => {
    const elsewhere = config({
      rules: [
        {
          schema: 'archive',
          table: 'old_users',
          identifierColumns: ['email'],
          action: 'delete',
          match: 'any',
          columns: [],
        },
      ],
    });
    await expect(bigqueryDriver.requestDeletion(ctx(elsewhere))).rejects.toThrow(/no longer exists or is not visible/);
  });

  it('serves Google’s own client (@google-cloud/bigquery with google-auth-library’s JWT) the same way', async () => {
    // The key as a downloaded file gives it: the client's google-auth-library signs the assertion itself.
    const bigquery = new BigQuery({
      projectId: fake.projectId,
      apiEndpoint: fake.url,
      credentials: { client_email: fake.key.client_email, private_key: fake.key.private_key },
    });
    // google-auth-library posts the assertion to Google's token endpoint: sent to the stand-in's instead.
    const auth = (await bigquery.authClient.getClient()) as unknown as {
      transporter: {
        interceptors: { request: { add(i: { resolved: (o: { url: unknown }) => Promise<unknown> }): void } };
      };
    };
    auth.transporter.interceptors.request.add({
      resolved: async (options) => {
        if (String(options.url) === GOOGLE_TOKEN_URI) options.url = new URL(fake.tokenUri);
        return options;
      },
    });
    const exchanges = fake.state.exchanges;
    const [found] = await bigquery.query({
      query: 'SELECT COUNT(*) AS n FROM `crm`.`users` WHERE `email` = @email',
      params: { email: JANE },
      location: 'EU',
    });
    expect(found).toEqual([{ n: 1 }]);
    expect(fake.state.exchanges).toBe(exchanges + 1);
    const [job] = await bigquery.createQueryJob({
      query: 'DELETE FROM `web`.`events` WHERE `distinct_id` = @email',
      params: { email: JANE },
      location: 'EU',
    });
    await job.getQueryResults();
    const [metadata] = await job.getMetadata();
    expect(metadata.statistics.query.numDmlAffectedRows).toBe('2');
    expect(await rows(`SELECT count(*)::int AS n FROM web.events`)).toEqual([{ n: 6 }]);
    const [dry] = await bigquery.createQueryJob({
      query: 'SELECT `email` FROM `crm`.`users`',
      location: 'EU',
      dryRun: true,
    });
    expect(Number(dry.metadata.statistics.totalBytesProcessed)).toBeGreaterThan(0);
  });

  it('sent and answered only what Google’s discovery document describes', () => {
    // The check itself tells a body off the contract: a field the document does not name, an int64 as a number.
    const schemas = bigqueryDiscoveryValidators();
    expect(schemas.problems('Job', { configuration: { query: { query: 'SELECT 1', parameters: [] } } })).not.toEqual(
      [],
    );
    expect(schemas.problems('JobStatistics', { totalBytesProcessed: 10 })).not.toEqual([]);
    expect(schemas.problems('Job', { configuration: { query: { query: 'SELECT 1', useLegacySql: false } } })).toEqual(
      [],
    );
    expect(fake.state.violations).toEqual([]);
  });
});
