import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSessions } from '../integrations/postgres/sessions';
import { assertHostAllowed, policyFromConfig } from '../lib/ssrf';
import { createCustomerDatabase, type CustomerDatabase } from '../test/customer-db';
import { LookupError, runIdentityLookup, validateLookupConfig, type IdentityLookupConfig } from './run-lookup';

let customer: CustomerDatabase;
let jane: string;
const policy = policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' });
const resolveHost = async (host: string) => (await assertHostAllowed(host, policy)).address;
const TYPES = ['email', 'user_id', 'stripe_customer_id'];
const JANE = [{ type: 'email', value: 'jane@example.com' }];

const USER_AND_CUSTOMER = `SELECT u.id AS user_id, c.stripe_id FROM users u LEFT JOIN customers c ON c.user_id = u.id WHERE u.email = {{email}}`;

const lookup = (query: string, extra: Partial<Extract<IdentityLookupConfig, { kind: 'sql' }>> = {}) =>
  ({
    kind: 'sql',
    dialect: 'postgres',
    query,
    columns: { user_id: 'user_id', stripe_id: 'stripe_customer_id' },
    timeoutMs: 2_000,
    maxRows: 5,
    ...extra,
  }) satisfies IdentityLookupConfig;

const run = (config: IdentityLookupConfig, known = JANE) =>
  runIdentityLookup(config, known, { secrets: customer.credentials, resolveHost });

async function failure(promise: Promise<unknown>): Promise<LookupError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupError);
  return error as LookupError;
}

beforeAll(async () => {
  customer = await createCustomerDatabase();
  await customer.pool.query(`
    CREATE TABLE customers (id bigserial PRIMARY KEY, user_id bigint REFERENCES users(id), stripe_id text);
    CREATE TABLE audit_log (value text);
    CREATE FUNCTION remember(e text) RETURNS text LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit_log VALUES (e); RETURN e; END $$;
  `);
  jane = await customer.seedUser('jane@example.com');
  const lookAlike = await customer.seedUser('JANE@example.com');
  const other = await customer.seedUser('jane@example.org');
  for (const [user, stripe] of [
    [jane, 'cus_jane1'],
    [lookAlike, 'cus_upper'],
    [other, 'cus_other'],
  ])
    await customer.pool.query(`INSERT INTO customers (user_id, stripe_id) VALUES ($1, $2)`, [user, stripe]);
}, 60_000);
afterAll(async () => {
  await closeSessions();
  await customer?.close();
});

describe('SQL identity lookup on PostgreSQL', () => {
  it("finds an email's user id and Stripe customer id, and nothing of look-alike people", async () => {
    validateLookupConfig(lookup(USER_AND_CUSTOMER), TYPES);
    expect(await run(lookup(USER_AND_CUSTOMER))).toEqual([
      { type: 'user_id', value: jane },
      { type: 'stripe_customer_id', value: 'cus_jane1' },
    ]);
    expect(await run(lookup(USER_AND_CUSTOMER), [{ type: 'email', value: 'nobody@example.com' }])).toEqual([]);
  });

  it('runs once per value of the first placeholder, skips NULLs, drops duplicates and what was known', async () => {
    const noStripe = await customer.seedUser('solo@example.com');
    const found = await run(lookup(USER_AND_CUSTOMER), [
      { type: 'email', value: 'jane@example.com' },
      { type: 'email', value: 'solo@example.com' },
      { type: 'user_id', value: jane },
    ]);
    expect(found).toEqual([
      { type: 'stripe_customer_id', value: 'cus_jane1' },
      { type: 'user_id', value: noStripe },
    ]);
  });

  it('with several types, runs per value of the first placeholder and takes the first value of the others', async () => {
    const either = `SELECT u.id AS user_id, c.stripe_id FROM users u JOIN customers c ON c.user_id = u.id WHERE c.stripe_id = {{stripe_customer_id}} OR u.id::text = {{user_id}}`;
    const other = String(await customer.count(`SELECT id FROM users WHERE email = 'jane@example.org'`));
    const upper = String(await customer.count(`SELECT id FROM users WHERE email = 'JANE@example.com'`));
    const second = await customer.seedUser('second@test.invalid');
    await customer.pool.query(`INSERT INTO customers (user_id, stripe_id) VALUES ($1, 'cus_second')`, [second]);
    const found = await run(lookup(either), [
      { type: 'stripe_customer_id', value: 'cus_jane1' },
      { type: 'stripe_customer_id', value: 'cus_upper' },
      { type: 'user_id', value: other },
      { type: 'user_id', value: second },
    ]);
    // Each customer id finds its person; only the first user id is used, so cus_second stays out.
    expect(found).toEqual([
      { type: 'user_id', value: jane },
      { type: 'stripe_customer_id', value: 'cus_other' },
      { type: 'user_id', value: upper },
    ]);
  });

  it('does not query when a placeholder has no known value', async () => {
    const query = `SELECT u.id AS user_id, NULL AS stripe_id FROM users u WHERE u.email = {{email}} AND u.id::text = {{user_id}}`;
    expect(await run(lookup(query))).toEqual([]);
    // The same parameter twice binds one value.
    const twice = `SELECT id AS user_id, NULL AS stripe_id FROM users WHERE email = {{email}} OR alt_email = {{email}}`;
    expect(await run(lookup(twice))).toEqual([{ type: 'user_id', value: jane }]);
  });

  it('refuses a second statement before running anything', async () => {
    const sneaky = lookup(`${USER_AND_CUSTOMER}; DELETE FROM customers`);
    const before = await customer.count('SELECT count(*) FROM customers');
    expect(() => validateLookupConfig(sneaky, TYPES)).toThrow(/one statement/);
    await expect(run(sneaky)).rejects.toThrow(/one statement/);
    expect(await customer.count('SELECT count(*) FROM customers')).toBe(before);
  });

  it('runs in a read-only transaction: a function that writes fails and writes nothing', async () => {
    const writes = lookup(`SELECT id AS user_id, NULL AS stripe_id FROM users WHERE email = remember({{email}})`);
    validateLookupConfig(writes, TYPES);
    const error = await failure(run(writes));
    expect(error.transient).toBe(false);
    expect(error.message).toMatch(/read-only transaction/);
    expect(error.message).not.toContain('jane@example.com');
    expect(await customer.count('SELECT count(*) FROM audit_log')).toBe(0);
  });

  it('fails when more rows than the cap match', async () => {
    const everyone = lookup(
      `SELECT id AS user_id, NULL AS stripe_id FROM users WHERE email ILIKE {{email}} OR email LIKE '%example%'`,
      { maxRows: 2 },
    );
    const error = await failure(run(everyone));
    expect(error.message).toBe('SQL lookup: more than 2 rows: refine the query');
    expect(error.transient).toBe(false);
    // Exactly at the cap is fine.
    expect(await run({ ...everyone, maxRows: 5 })).toHaveLength(4);
  });

  it('gives up on a slow query at its timeout, as a transient failure', async () => {
    const slow = lookup(`SELECT id AS user_id, pg_sleep(5)::text AS stripe_id FROM users WHERE email = {{email}}`, {
      timeoutMs: 300,
    });
    const started = Date.now();
    const error = await failure(run(slow));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.transient).toBe(true);
    expect(error.message).toBe('SQL lookup: the query did not finish within 300 ms');
  });

  it('names a missing column or a value that does not fit, never the value', async () => {
    const missing = await failure(run(lookup(`SELECT id AS user_id FROM users WHERE email = {{email}}`)));
    expect(missing.message).toBe('SQL lookup: the query returns no column stripe_id');
    const misfit = await failure(
      run(lookup(`SELECT id AS user_id, NULL AS stripe_id FROM users WHERE id = {{email}}`)),
    );
    expect(misfit.message).toMatch(/does not fit/);
    expect(misfit.message).not.toContain('jane@example.com');
    const wrong = await failure(
      runIdentityLookup(lookup(USER_AND_CUSTOMER), JANE, {
        secrets: { ...customer.credentials, password: 'not-the-password' },
        resolveHost,
      }),
    );
    expect(wrong.message).toMatch(/password authentication failed/);
    expect(wrong.message).not.toContain('not-the-password');
  });
});
