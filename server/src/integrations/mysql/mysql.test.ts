import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlConfigSchema } from '@shared/integrations/postgres';
import { assertHostAllowed, policyFromConfig } from '../../lib/ssrf';
import { startMariaDb, type MariaDbServer } from '../../test/stores/mariadb';
import { PermanentError, TransientError, type Exchange } from '../types';
import { discoverMysql, mysqlDeleteAndVerify, mysqlDryRun, mysqlTestConnection, validateMysqlRules } from './execute';
import { closeMysqlPools, withMysqlConnection } from './sessions';
import { mostAtOnce } from '../../test/at-once';
import { TEST_HASH_KEY } from '../../test/driver-context';

let server: MariaDbServer;
let db: Awaited<ReturnType<MariaDbServer['createDatabase']>>;
const policy = policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' });
const resolveHost = async (host: string) => (await assertHostAllowed(host, policy)).address;

const SCHEMA = `
  CREATE TABLE users (id BIGINT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(191) NOT NULL, alt_email VARCHAR(191), name VARCHAR(200), phone VARCHAR(40),
    code VARCHAR(4), deleted BOOLEAN NOT NULL DEFAULT FALSE, deleted_at DATETIME NULL, KEY (email)) ENGINE=InnoDB;
  CREATE TABLE orders (id BIGINT AUTO_INCREMENT PRIMARY KEY, user_id BIGINT NOT NULL, customer_email VARCHAR(191) NOT NULL, shipping_address TEXT, total DECIMAL(10,2) NOT NULL,
    KEY (customer_email), FOREIGN KEY (user_id) REFERENCES users(id)) ENGINE=InnoDB;
  CREATE TABLE events (id BIGINT AUTO_INCREMENT PRIMARY KEY, distinct_id VARCHAR(191), kind VARCHAR(40) NOT NULL, KEY (distinct_id)) ENGINE=InnoDB;
  CREATE TABLE contacts_unicode (email VARCHAR(191) COLLATE utf8mb4_unicode_ci, note TEXT) ENGINE=InnoDB;
  CREATE TABLE contacts_latin1 (email VARCHAR(191) CHARACTER SET latin1 COLLATE latin1_swedish_ci, note TEXT) ENGINE=InnoDB;
  CREATE TABLE \`we\`\`ird; DROP TABLE users; --\` (\`E-mail\`\`\` VARCHAR(191), note TEXT) ENGINE=InnoDB;
  CREATE TABLE numbered (id INT PRIMARY KEY, email VARCHAR(191)) ENGINE=InnoDB;
  CREATE TABLE coded (amount DECIMAL(10,2), ref UUID, note TEXT) ENGINE=InnoDB;
`;

beforeAll(async () => {
  server = await startMariaDb();
  db = await server.createDatabase(SCHEMA);
}, 90_000);
afterAll(async () => {
  await closeMysqlPools();
  await db?.close();
  await server?.stop();
});

const ctxFor = (rules: unknown[], identifier: string, extra: object = {}) => ({
  secrets: db.credentials as Record<string, unknown>,
  resolveHost,
  config: mysqlConfigSchema.parse({ rules, ...extra }),
  identifier,
  hashKey: TEST_HASH_KEY,
  trail: [] as Exchange[],
});

async function seedUser(email: string, extra: { orders?: number; events?: number } = {}) {
  const [result] = await db.pool.query(`INSERT INTO users (email, name, phone) VALUES (?, 'Name', '+1 555')`, [email]);
  const id = (result as { insertId: number }).insertId;
  for (let i = 0; i < (extra.orders ?? 2); i++)
    await db.pool.query(
      `INSERT INTO orders (user_id, customer_email, shipping_address, total) VALUES (?, ?, '1 Main St', 10)`,
      [id, email],
    );
  for (let i = 0; i < (extra.events ?? 1); i++)
    await db.pool.query(`INSERT INTO events (distinct_id, kind) VALUES (?, 'page_view')`, [email]);
  return id;
}

describe('MySQL/MariaDB rules against a real MariaDB', () => {
  it('connects through the SSRF guard, which refuses loopback unless allowlisted', async () => {
    expect(await mysqlTestConnection({ secrets: db.credentials, resolveHost })).toMatchObject({
      ok: true,
      message: expect.stringContaining('MariaDB'),
    });
    const strict = policyFromConfig({});
    await expect(assertHostAllowed('127.0.0.1', strict)).rejects.toThrow(/loopback/);
    const wrong = await mysqlTestConnection({ secrets: { ...db.credentials, password: 'nope' }, resolveHost });
    expect(wrong).toMatchObject({ ok: false, message: expect.stringContaining('Access denied') });
  });

  it('discovers tables, columns (BOOLEAN as boolean, with length limits, character sets and unique keys) and which tables reference which', async () => {
    const tables = await discoverMysql({ secrets: db.credentials, resolveHost });
    const users = tables.find((t) => t.schema === db.name && t.table === 'users')!;
    expect(users.columns).toEqual(
      expect.arrayContaining([
        { name: 'email', dataType: 'varchar', nullable: false, maxLength: 191, charset: 'utf8mb4' },
        { name: 'id', dataType: 'bigint', nullable: false, unique: true },
        { name: 'deleted', dataType: 'boolean', nullable: false },
        { name: 'deleted_at', dataType: 'datetime', nullable: true },
      ]),
    );
    expect(users.referencedBy).toEqual([`${db.name}.orders`]);
    expect(tables.map((t) => t.table)).toContain('we`ird; DROP TABLE users; --');
    expect(tables.find((t) => t.table === 'contacts_latin1')!.columns[0]).toMatchObject({ charset: 'latin1' });
  });

  it("discovers every database the user is granted, not the server's own, and accepts rules on them", async () => {
    const shop = await server.createDatabase(
      'CREATE TABLE customers (id INT PRIMARY KEY, email VARCHAR(191) NOT NULL, KEY (email)) ENGINE=InnoDB',
    );
    const analytics = await server.createDatabase(
      'CREATE TABLE page_views (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(191), path TEXT) ENGINE=InnoDB',
    );
    const hidden = await server.createDatabase('CREATE TABLE secrets (email VARCHAR(191)) ENGINE=InnoDB');
    await server.asRoot(
      `CREATE USER 'analyst'@'%' IDENTIFIED BY 'analyst-pass';
       GRANT ALL ON \`${shop.name}\`.* TO 'analyst'@'%'; GRANT SELECT, DELETE ON \`${analytics.name}\`.* TO 'analyst'@'%'`,
    );
    const secrets = { ...shop.credentials, user: 'analyst', password: 'analyst-pass' };
    try {
      const tables = await discoverMysql({ secrets, resolveHost });
      // The account's own database first.
      expect(tables.map((t) => `${t.schema}.${t.table}`)).toEqual([
        `${shop.name}.customers`,
        `${analytics.name}.page_views`,
      ]);
      await analytics.pool.query(
        `INSERT INTO page_views (email, path) VALUES ('a@example.com', '/'), ('b@example.com', '/')`,
      );
      const rules = [
        { table: 'customers', identifierColumns: ['email'], action: 'delete' },
        { schema: analytics.name, table: 'page_views', identifierColumns: ['email'], action: 'delete' },
        { schema: hidden.name, table: 'secrets', identifierColumns: ['email'], action: 'delete' },
      ];
      const config = mysqlConfigSchema.parse({ rules });
      expect((await validateMysqlRules({ secrets, resolveHost, config })).map((i) => i.message)).toEqual([
        `Table ${hidden.name}.secrets does not exist or is not visible to this user`,
      ]);
      const ctx = { ...ctxFor(rules.slice(0, 2), 'a@example.com'), secrets };
      expect(await mysqlDeleteAndVerify(ctx)).toMatchObject({
        kind: 'success',
        evidence: { changed: { [`delete on ${analytics.name}.page_views`]: 1 } },
      });
      expect(await analytics.count('SELECT COUNT(*) FROM page_views')).toBe(1);
    } finally {
      await Promise.all([shop.close(), analytics.close(), hidden.close()]);
    }
  });

  it('validates rules against the live schema', async () => {
    await db.pool.query(
      `CREATE TABLE IF NOT EXISTS handles (handle VARCHAR(191) NOT NULL, UNIQUE KEY (handle)) ENGINE=InnoDB`,
    );
    // Unique together with another column: that column may tell the masked rows apart.
    await db.pool.query(
      `CREATE TABLE IF NOT EXISTS tenant_handles (tenant INT, handle VARCHAR(191), UNIQUE KEY (tenant, handle)) ENGINE=InnoDB`,
    );
    const issues = await validateMysqlRules({
      secrets: db.credentials,
      resolveHost,
      config: mysqlConfigSchema.parse({
        rules: [
          { table: 'nope', identifierColumns: ['email'], action: 'delete' },
          { table: 'users', identifierColumns: ['email'], action: 'set_null', columns: ['email'] },
          { table: 'orders', identifierColumns: ['customer_email'], action: 'hash', columns: ['total'] },
          { table: 'users', identifierColumns: ['email'], action: 'soft_delete', softDeleteColumn: 'name' },
          { table: 'users', identifierColumns: ['email'], action: 'mask', columns: ['code', 'name'] },
          { table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['phone', 'name'] },
          { table: 'handles', identifierColumns: ['handle'], action: 'mask', columns: ['handle'] },
          { table: 'handles', identifierColumns: ['handle'], action: 'hash', columns: ['handle'] },
          { table: 'tenant_handles', identifierColumns: ['handle'], action: 'mask', columns: ['handle'] },
        ],
      }),
    });
    expect(issues.map((i) => i.message)).toEqual([
      `Table ${db.name}.nope does not exist or is not visible to this user`,
      'Column email is NOT NULL and cannot be set to NULL',
      'Column total is decimal; only text columns can be hashed',
      'Column name must be boolean or a timestamp',
      'Column code holds at most 4 characters; the mask [masked] needs 8',
      'Column phone holds at most 40 characters; a hash (hmac:…) needs 69',
      'Column handle is a primary key or has a unique index of its own, and masking gives every row the same value; hash it instead',
    ]);
  });

  it('matches identifiers exactly despite case- and accent-insensitive, PAD SPACE collations', async () => {
    const lookAlikes = [
      'Jane@example.com',
      'jane@exämple.com',
      'jane@example.com ',
      'JANE@EXAMPLE.COM',
      'jane@examplé.com',
    ];
    for (const email of ['jane@example.com', ...lookAlikes]) await seedUser(email, { orders: 1, events: 1 });
    for (const table of ['contacts_unicode', 'contacts_latin1']) {
      for (const email of ['jane@example.com', 'Jane@example.com', 'jane@exämple.com', 'jane@example.com  '])
        await db.pool.query(`INSERT INTO ${table} (email, note) VALUES (?, 'x')`, [email]);
    }
    // The collations really do treat them as equal: a plain `=` would delete the look-alikes too.
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = 'jane@example.com'`)).toBeGreaterThanOrEqual(4);
    expect(await db.count(`SELECT COUNT(*) FROM contacts_latin1 WHERE email = 'jane@example.com'`)).toBe(3); // Swedish: ä is its own letter

    const rules = [
      { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
      { table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
      { table: 'users', identifierColumns: ['email'], action: 'delete' },
      { table: 'contacts_unicode', identifierColumns: ['email'], action: 'delete' },
      { table: 'contacts_latin1', identifierColumns: ['email'], action: 'delete' },
    ];
    const dry = await mysqlDryRun(ctxFor(rules, 'jane@example.com'));
    expect(dry.map((r) => r.rows)).toEqual([1, 1, 1, 1, 1]);
    const outcome = await mysqlDeleteAndVerify(ctxFor(rules, 'jane@example.com'));
    expect(outcome).toMatchObject({ kind: 'success' });
    const [left] = await db.pool.query(`SELECT email FROM users WHERE email LIKE 'jane%' ORDER BY id`);
    expect((left as { email: string }[]).map((r) => r.email)).toEqual(lookAlikes);
    expect(await db.count(`SELECT COUNT(*) FROM orders WHERE customer_email LIKE 'jane%'`)).toBe(lookAlikes.length);
    expect(await db.count(`SELECT COUNT(*) FROM contacts_unicode`)).toBe(3);
    expect(await db.count(`SELECT COUNT(*) FROM contacts_latin1`)).toBe(3);

    // The one with a trailing space is its own identifier, and only it goes.
    expect(await mysqlDeleteAndVerify(ctxFor(rules, 'jane@example.com '))).toMatchObject({ kind: 'success' });
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email LIKE 'jane%'`)).toBe(lookAlikes.length - 1);
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = BINARY 'jane@exämple.com'`)).toBe(1);
  });

  it('puts child tables first whatever the rules order, so foreign keys hold', async () => {
    await seedUser('fk-order@example.com', { orders: 3 });
    const outcome = await mysqlDeleteAndVerify(
      ctxFor(
        [
          { table: 'users', identifierColumns: ['email'], action: 'delete' },
          { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
        ],
        'fk-order@example.com',
      ),
    );
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: { changed: { [`delete on ${db.name}.orders`]: 3, [`delete on ${db.name}.users`]: 1 } },
    });
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = 'fk-order@example.com'`)).toBe(0);
  });

  it('a foreign key violation fails the whole transaction: nothing is half-deleted', async () => {
    await seedUser('fk@example.com', { orders: 2, events: 2 });
    const ctx = ctxFor(
      [
        { table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
        { table: 'users', identifierColumns: ['email'], action: 'delete' },
      ],
      'fk@example.com',
    );
    const error = await mysqlDeleteAndVerify(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toMatch(/foreign key constraint fails/);
    expect(await db.count(`SELECT COUNT(*) FROM events WHERE distinct_id = 'fk@example.com'`)).toBe(2);
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = 'fk@example.com'`)).toBe(1);
  });

  it('rolls every rule back when a later rule fails', async () => {
    await seedUser('rollback@example.com', { orders: 2 });
    // `code` holds 4 characters: the mask '[masked]' does not fit, and strict mode refuses it.
    await db.pool.query(`UPDATE users SET code = 'abcd' WHERE email = 'rollback@example.com'`);
    const ctx = ctxFor(
      [
        { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
        { table: 'users', identifierColumns: ['email'], action: 'mask', columns: ['code'] },
      ],
      'rollback@example.com',
    );
    await expect(mysqlDeleteAndVerify(ctx)).rejects.toThrow(/Data too long/);
    expect(await db.count(`SELECT COUNT(*) FROM orders WHERE customer_email = 'rollback@example.com'`)).toBe(2);
    expect(ctx.trail.at(-1)).toMatchObject({ kind: 'sql', error: expect.stringContaining('Data too long') });
  });

  it('set NULL, hash, mask, soft delete (flag and timestamp), match all', async () => {
    await seedUser('multi@example.com', { orders: 1, events: 2 });
    await db.pool.query(`UPDATE users SET alt_email = 'multi@example.com' WHERE email = 'multi@example.com'`);
    const rules = [
      { table: 'orders', identifierColumns: ['customer_email'], action: 'mask', columns: ['shipping_address'] },
      { table: 'users', identifierColumns: ['email'], action: 'set_null', columns: ['phone'] },
      { table: 'users', identifierColumns: ['email', 'alt_email'], match: 'all', action: 'hash', columns: ['name'] },
      { table: 'users', identifierColumns: ['email'], action: 'soft_delete', softDeleteColumn: 'deleted' },
      { table: 'users', identifierColumns: ['email'], action: 'soft_delete', softDeleteColumn: 'deleted_at' },
    ];
    expect((await mysqlDryRun(ctxFor(rules, 'multi@example.com'))).map((r) => r.rows)).toEqual([1, 1, 1, 1, 1]);
    expect(await mysqlDeleteAndVerify(ctxFor(rules, 'multi@example.com'))).toMatchObject({ kind: 'success' });
    const [rows] = await db.pool.query(
      `SELECT phone, name, deleted, deleted_at FROM users WHERE email = 'multi@example.com'`,
    );
    const user = (rows as Record<string, unknown>[])[0]!;
    expect(user).toMatchObject({ phone: null, deleted: 1 });
    expect(user.deleted_at).not.toBeNull();
    expect(user.name).toBe(`hmac:${createHmac('sha256', TEST_HASH_KEY).update('Name').digest('hex')}`);
    expect(
      await db.count(
        `SELECT COUNT(*) FROM orders WHERE customer_email = 'multi@example.com' AND shipping_address = '[masked]'`,
      ),
    ).toBe(1);
    // Everything is in its target state now: a second run changes nothing and still verifies.
    expect((await mysqlDryRun(ctxFor(rules, 'multi@example.com'))).map((r) => r.rows)).toEqual([0, 0, 0, 0, 0]);
    expect(await mysqlDeleteAndVerify(ctxFor(rules, 'multi@example.com'))).toMatchObject({
      kind: 'success',
      message: expect.stringMatching(/^0 row/),
    });
  });

  it('unicode identifiers and values: hashed as UTF-8, matched byte for byte', async () => {
    const email = 'zoë.例え😀@example.com';
    await seedUser(email, { orders: 0, events: 0 });
    await db.pool.query(`UPDATE users SET name = 'Zoë 😀' WHERE email = ?`, [email]);
    expect(
      await mysqlDeleteAndVerify(
        ctxFor([{ table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['name'] }], email),
      ),
    ).toMatchObject({ kind: 'success' });
    const [rows] = await db.pool.query(`SELECT name FROM users WHERE email = ?`, [email]);
    expect((rows as { name: string }[])[0]!.name).toBe(
      `hmac:${createHmac('sha256', TEST_HASH_KEY).update('Zoë 😀', 'utf8').digest('hex')}`,
    );
    // A latin1 column: the HMAC is still of the value's UTF-8 bytes, as on PostgreSQL.
    await db.pool.query(`INSERT INTO contacts_latin1 (email, note) VALUES ('zoë@example.com', 'x')`);
    const rule = { table: 'contacts_latin1', identifierColumns: ['email'], action: 'hash', columns: ['email'] };
    expect(await mysqlDeleteAndVerify(ctxFor([rule], 'zoë@example.com'))).toMatchObject({ kind: 'success' });
    expect(
      await db.count(`SELECT COUNT(*) FROM contacts_latin1 WHERE email = ?`, [
        `hmac:${createHmac('sha256', TEST_HASH_KEY).update('zoë@example.com', 'utf8').digest('hex')}`,
      ]),
    ).toBe(1);
  });

  it('an identifier a latin1 column cannot hold matches nothing there, and the other tables are still processed', async () => {
    const email = 'łukasz@example.com';
    await seedUser(email, { orders: 1, events: 0 });
    await db.pool.query(
      `INSERT INTO contacts_latin1 (email, note) VALUES ('lukasz@example.com', 'x'), ('?ukasz@example.com', 'x')`,
    );
    const before = await db.count(`SELECT COUNT(*) FROM contacts_latin1`);
    const rules = [
      { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
      { table: 'contacts_latin1', identifierColumns: ['email'], action: 'delete' },
      { table: 'users', identifierColumns: ['email'], action: 'delete' },
    ];
    expect((await mysqlDryRun(ctxFor(rules, email))).map((r) => r.rows)).toEqual([1, 0, 1]);
    expect(await mysqlDeleteAndVerify(ctxFor(rules, email))).toMatchObject({
      kind: 'success',
      evidence: { changed: { 'delete on customer_1.users': 1, 'delete on customer_1.contacts_latin1': 0 } },
    });
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = ?`, [email])).toBe(0);
    expect(await db.count(`SELECT COUNT(*) FROM contacts_latin1`)).toBe(before);
    // An emoji is outside latin1 too; latin1's own letters still match there.
    await db.pool.query(`INSERT INTO contacts_latin1 (email, note) VALUES ('zoë@example.com', 'x')`);
    const latin1 = [{ table: 'contacts_latin1', identifierColumns: ['email'], action: 'delete' }];
    expect((await mysqlDryRun(ctxFor(latin1, 'zoë@example.com')))[0]!.rows).toBe(1);
    expect((await mysqlDryRun(ctxFor(latin1, 'zoë😀@example.com')))[0]!.rows).toBe(0);
  });

  it('hostile table, column and identifier values only ever match themselves', async () => {
    const table = 'we`ird; DROP TABLE users; --';
    const hostile = "' OR '1'='1";
    await db.pool.query(
      `INSERT INTO \`we\`\`ird; DROP TABLE users; --\` (\`E-mail\`\`\`, note) VALUES (?, 'a'), ('other@example.com', 'b'), ('x', 'c')`,
      [hostile],
    );
    await db.pool.query(`INSERT INTO numbered (id, email) VALUES (0, 'zero@example.com'), (42, 'answer@example.com')`);
    const usersBefore = await db.count('SELECT COUNT(*) FROM users');
    const outcome = await mysqlDeleteAndVerify(
      ctxFor(
        [
          { table, identifierColumns: ['E-mail`'], action: 'delete' },
          // MySQL compares 'text' = 0 as numbers (true); the rule skips numeric columns for a non-numeric identifier.
          { table: 'numbered', identifierColumns: ['id', 'email'], action: 'delete' },
          { table: 'users', identifierColumns: ['email'], action: 'delete' },
        ],
        hostile,
      ),
    );
    expect(outcome).toMatchObject({ kind: 'success' });
    expect(await db.count(`SELECT COUNT(*) FROM \`we\`\`ird; DROP TABLE users; --\``)).toBe(2);
    expect(await db.count('SELECT COUNT(*) FROM numbered')).toBe(2);
    expect(await db.count('SELECT COUNT(*) FROM users')).toBe(usersBefore);
    // A numeric identifier matches the numeric column exactly.
    expect(
      await mysqlDeleteAndVerify(
        ctxFor([{ table: 'numbered', identifierColumns: ['id', 'email'], action: 'delete' }], '42'),
      ),
    ).toMatchObject({ kind: 'success' });
    expect(await db.count('SELECT COUNT(*) FROM numbered')).toBe(1);
  });

  it('an identifier cannot break out of its quotes on a server whose sql_mode has NO_BACKSLASH_ESCAPES', async () => {
    await seedUser('bystander@example.com', { orders: 0, events: 0 });
    await db.pool.query(`INSERT INTO users (email, name, phone) VALUES (?, 'Name', '+1 555')`, ['CORP\\jdoe']);
    const [[mode]] = (await db.pool.query('SELECT @@GLOBAL.sql_mode AS m')) as unknown as [{ m: string }[]];
    await db.pool.query(`SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')`);
    // Connections opened from now on take the server's new default.
    await closeMysqlPools();
    try {
      const usersBefore = await db.count('SELECT COUNT(*) FROM users');
      const rules = [{ table: 'users', identifierColumns: ['email'], action: 'delete' }];
      expect(await mysqlDeleteAndVerify(ctxFor(rules, "x' OR 1=1)) #"))).toMatchObject({ kind: 'success' });
      expect(await db.count('SELECT COUNT(*) FROM users')).toBe(usersBefore);
      expect(await mysqlDeleteAndVerify(ctxFor(rules, 'CORP\\jdoe'))).toMatchObject({ kind: 'success' });
      expect(await db.count('SELECT COUNT(*) FROM users')).toBe(usersBefore - 1);
      expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = 'bystander@example.com'`)).toBe(1);
    } finally {
      await db.pool.query('SET GLOBAL sql_mode = ?', [mode!.m]);
      await closeMysqlPools();
    }
  });

  it('numbers and UUIDs match by value, whatever their text form (42.00, a UUID in lower case)', async () => {
    const uuid = '550e8400-e29b-41d4-a716-446655440000';
    await db.pool.query(
      `INSERT INTO coded (amount, ref, note) VALUES (42.00, NULL, 'a'), (NULL, ?, 'b'), (7, NULL, 'c')`,
      [uuid],
    );
    const rule = (column: string) => [{ table: 'coded', identifierColumns: [column], action: 'delete' }];
    expect(await mysqlDeleteAndVerify(ctxFor(rule('amount'), '42'))).toMatchObject({ kind: 'success' });
    expect(await mysqlDeleteAndVerify(ctxFor(rule('ref'), uuid.toUpperCase()))).toMatchObject({ kind: 'success' });
    expect(await db.count('SELECT COUNT(*) FROM coded')).toBe(1);
  });

  it('verification catches a row that is still there after the commit', async () => {
    await seedUser('trigger@example.com', { orders: 1, events: 1 });
    // The customer's audit trigger writes the e-mail back into events when an order is deleted.
    await db.pool.query(
      `CREATE TRIGGER orders_audit AFTER DELETE ON orders FOR EACH ROW INSERT INTO events (distinct_id, kind) VALUES (OLD.customer_email, 'order_deleted')`,
    );
    try {
      const outcome = await mysqlDeleteAndVerify(
        ctxFor(
          [
            { table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
            { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
          ],
          'trigger@example.com',
        ),
      );
      expect(outcome).toEqual({
        kind: 'retry',
        reason: `Verification found rows still matching: delete on ${db.name}.events: 1`,
      });
    } finally {
      await db.pool.query('DROP TRIGGER orders_audit');
    }
  });

  it('a statement that waits longer than the statement timeout fails as transient', async () => {
    await seedUser('locked@example.com', { orders: 0, events: 0 });
    const holder = await db.pool.getConnection();
    try {
      await holder.query('START TRANSACTION');
      await holder.query(`SELECT * FROM users WHERE email = 'locked@example.com' FOR UPDATE`);
      const started = Date.now();
      const error = await mysqlDeleteAndVerify(
        ctxFor([{ table: 'users', identifierColumns: ['email'], action: 'delete' }], 'locked@example.com', {
          statementTimeoutMs: 1000,
        }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransientError);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = 'locked@example.com'`)).toBe(1);
  });

  it('statements carry placeholders only: the identifier is never part of the SQL text', async () => {
    const ctx = ctxFor(
      [{ table: 'users', identifierColumns: ['email', 'alt_email'], action: 'delete' }],
      'secret-person@example.com',
    );
    await mysqlDeleteAndVerify(ctx);
    expect(ctx.trail.length).toBeGreaterThan(0);
    expect(JSON.stringify(ctx.trail)).not.toContain('secret-person');
  });
});

it("holds as many connections to a customer database at once as the integration's maxConcurrency, else the worker's CUSTOMER_DB_CONNECTIONS, else 4", async () => {
  const connectionsAtOnce = (maxConcurrency: number | null, connections?: number) =>
    mostAtOnce(8, (inside) =>
      withMysqlConnection(
        { secrets: db.credentials as Record<string, unknown>, resolveHost, maxConcurrency, connections },
        5_000,
        async (connection) => {
          await connection.query('SELECT 1');
          await inside();
        },
      ),
    );
  expect(await connectionsAtOnce(null)).toBe(4);
  expect(await connectionsAtOnce(6)).toBe(6);
  expect(await connectionsAtOnce(2)).toBe(2);
  expect(await connectionsAtOnce(null, 7)).toBe(7);
  expect(await connectionsAtOnce(3, 7)).toBe(3);
});
