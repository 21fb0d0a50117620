import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMysqlPools } from '../integrations/mysql/sessions';
import { assertHostAllowed, policyFromConfig } from '../lib/ssrf';
import { startMariaDb, type MariaDbServer } from '../test/stores/mariadb';
import { LookupError, runIdentityLookup, validateLookupConfig, type IdentityLookupConfig } from './run-lookup';

let server: MariaDbServer;
let db: Awaited<ReturnType<MariaDbServer['createDatabase']>>;
const policy = policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' });
const resolveHost = async (host: string) => (await assertHostAllowed(host, policy)).address;
const TYPES = ['email', 'user_id', 'stripe_customer_id'];
const JANE = [{ type: 'email', value: 'jane@example.com' }];

const SCHEMA = `
  CREATE TABLE users (id BIGINT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(191) NOT NULL, KEY (email)) ENGINE=InnoDB;
  CREATE TABLE customers (id BIGINT AUTO_INCREMENT PRIMARY KEY, user_id BIGINT, stripe_id VARCHAR(64), FOREIGN KEY (user_id) REFERENCES users(id)) ENGINE=InnoDB;
  CREATE TABLE audit_log (value VARCHAR(191)) ENGINE=InnoDB;
`;

// The default collation (utf8mb4_general_ci) compares case-insensitively: an exact lookup says COLLATE utf8mb4_bin.
const EXACT = `SELECT u.id AS user_id, c.stripe_id FROM users u LEFT JOIN customers c ON c.user_id = u.id WHERE u.email = {{email}} COLLATE utf8mb4_bin`;

const lookup = (query: string, extra: Partial<Extract<IdentityLookupConfig, { kind: 'sql' }>> = {}) =>
  ({
    kind: 'sql',
    dialect: 'mysql',
    query,
    columns: { user_id: 'user_id', stripe_id: 'stripe_customer_id' },
    timeoutMs: 2_000,
    maxRows: 5,
    ...extra,
  }) satisfies IdentityLookupConfig;

const run = (config: IdentityLookupConfig, known = JANE) =>
  runIdentityLookup(config, known, { secrets: db.credentials, resolveHost });

async function failure(promise: Promise<unknown>): Promise<LookupError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupError);
  return error as LookupError;
}

async function seed(email: string, stripeId: string | null): Promise<string> {
  const [result] = await db.pool.query(`INSERT INTO users (email) VALUES (?)`, [email]);
  const id = (result as { insertId: number }).insertId;
  await db.pool.query(`INSERT INTO customers (user_id, stripe_id) VALUES (?, ?)`, [id, stripeId]);
  return String(id);
}

let jane: string;
let upper: string;

beforeAll(async () => {
  server = await startMariaDb();
  db = await server.createDatabase(SCHEMA);
  await db.pool.query(
    `CREATE FUNCTION remember(e VARCHAR(191)) RETURNS VARCHAR(191) MODIFIES SQL DATA BEGIN INSERT INTO audit_log VALUES (e); RETURN e; END`,
  );
  jane = await seed('jane@example.com', 'cus_jane1');
  upper = await seed('JANE@example.com', 'cus_upper');
  await seed('jane@example.org', 'cus_other');
}, 90_000);
afterAll(async () => {
  await closeMysqlPools();
  await db?.close();
  await server?.stop();
});

describe('SQL identity lookup on MariaDB', () => {
  it("finds an email's user id and Stripe customer id, and nothing of look-alike people", async () => {
    validateLookupConfig(lookup(EXACT), TYPES);
    expect(await run(lookup(EXACT))).toEqual([
      { type: 'user_id', value: jane },
      { type: 'stripe_customer_id', value: 'cus_jane1' },
    ]);
    // Without COLLATE the database's collation decides: the upper-case address is the same person to it.
    const folded = await run(lookup(EXACT.replace(' COLLATE utf8mb4_bin', '')));
    expect(folded).toEqual(
      expect.arrayContaining([
        { type: 'user_id', value: upper },
        { type: 'stripe_customer_id', value: 'cus_upper' },
      ]),
    );
    expect(folded).toHaveLength(4);
  });

  it('runs once per known email, skips NULLs and binds a repeated placeholder each time', async () => {
    const solo = await seed('solo@example.com', null);
    const twice = `SELECT u.id AS user_id, c.stripe_id FROM users u JOIN customers c ON c.user_id = u.id WHERE u.email = {{email}} COLLATE utf8mb4_bin OR c.stripe_id = {{email}}`;
    expect(
      await run(lookup(twice), [
        { type: 'email', value: 'jane@example.com' },
        { type: 'email', value: 'solo@example.com' },
      ]),
    ).toEqual([
      { type: 'user_id', value: jane },
      { type: 'stripe_customer_id', value: 'cus_jane1' },
      { type: 'user_id', value: solo },
    ]);
  });

  it('refuses a second statement, and a function that writes fails in the read-only transaction', async () => {
    const sneaky = lookup(`${EXACT}; DELETE FROM customers`);
    expect(() => validateLookupConfig(sneaky, TYPES)).toThrow(/one statement/);
    await expect(run(sneaky)).rejects.toThrow(/one statement/);

    const writes = lookup(`SELECT id AS user_id, NULL AS stripe_id FROM users WHERE email = remember({{email}})`);
    validateLookupConfig(writes, TYPES);
    const error = await failure(run(writes));
    expect(error.transient).toBe(false);
    expect(error.message).toMatch(/READ ONLY transaction/);
    expect(error.message).not.toContain('jane@example.com');
    expect(await db.count('SELECT COUNT(*) FROM audit_log')).toBe(0);
    expect(await db.count('SELECT COUNT(*) FROM customers')).toBe(4);
  });

  it('fails when more rows than the cap match', async () => {
    const everyone = lookup(
      `SELECT id AS user_id, NULL AS stripe_id FROM users WHERE email LIKE {{email}} OR email LIKE '%example%'`,
      {
        maxRows: 3,
      },
    );
    const error = await failure(run(everyone));
    expect(error.message).toBe('SQL lookup: more than 3 rows: refine the query');
    expect(await run({ ...everyone, maxRows: 4 })).toHaveLength(4);
  });

  it('gives up on a slow query at its timeout, as a transient failure', async () => {
    const slow = lookup(
      `SELECT id AS user_id, SLEEP(5) AS stripe_id FROM users WHERE email = {{email}} COLLATE utf8mb4_bin`,
      { timeoutMs: 300 },
    );
    const started = Date.now();
    const error = await failure(run(slow));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.transient).toBe(true);
    expect(error.message).toBe('SQL lookup: the query did not finish within 300 ms');
  });
});
