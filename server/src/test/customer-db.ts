import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { callerFor } from './harness';

/**
 * A second real PostgreSQL database playing a customer's application database:
 * users, orders (foreign key to users), events, with soft-delete and text columns.
 */
export async function createCustomerDatabase() {
  const adminUrl = new URL(inject('adminDatabaseUrl'));
  const name = `customer_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
  pool.on('error', () => {});
  await pool.query(`
    CREATE TABLE users (id bigserial PRIMARY KEY, email text UNIQUE NOT NULL, alt_email text, name text, phone text, deleted boolean NOT NULL DEFAULT false);
    CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL REFERENCES users(id), customer_email text NOT NULL, shipping_address text, total numeric(10,2) NOT NULL);
    CREATE TABLE events (id bigserial PRIMARY KEY, distinct_id text, user_ref bigint, kind text NOT NULL, deleted_at timestamptz);
    CREATE TABLE "Weird ""Table""" ("E-mail" text, note text);
  `);
  return {
    url: url.toString(),
    pool,
    credentials: {
      host: '127.0.0.1',
      port: Number(url.port),
      database: name,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      sslMode: 'disable' as const,
    },
    async seedUser(email: string, extra: { alt?: string; orders?: number; events?: number } = {}) {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO users (email, alt_email, name, phone) VALUES ($1, $2, 'Name', '+1 555') RETURNING id`,
        [email, extra.alt ?? null],
      );
      const id = rows[0]!.id;
      for (let i = 0; i < (extra.orders ?? 2); i++)
        await pool.query(
          `INSERT INTO orders (user_id, customer_email, shipping_address, total) VALUES ($1, $2, '1 Main St', 10)`,
          [id, email],
        );
      for (let i = 0; i < (extra.events ?? 3); i++)
        await pool.query(`INSERT INTO events (distinct_id, user_ref, kind) VALUES ($1, $2, 'page_view')`, [email, id]);
      return id;
    },
    async count(sql: string, values: unknown[] = []) {
      const { rows } = await pool.query(sql, values);
      return Number(Object.values(rows[0] as object)[0]);
    },
    async close() {
      await pool.end();
      const cleanup = new pg.Client({ connectionString: adminUrl.toString() });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

export type CustomerDatabase = Awaited<ReturnType<typeof createCustomerDatabase>>;

/** The rules a test deletes a subject with unless it needs others: their orders, then their user row. */
const ORDERS_THEN_USER = [
  { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
  { table: 'users', identifierColumns: ['email'], action: 'delete' },
];

/**
 * Connects the customer database to a workspace as a user would: a database account holding
 * its credentials, and a PostgreSQL integration "App database" with `rules` (and any other
 * configuration in `extra`).
 */
export async function connectCustomerDatabase(
  caller: ReturnType<typeof callerFor>['caller'],
  workspaceId: string,
  customer: CustomerDatabase,
  rules: unknown[] = ORDERS_THEN_USER,
  extra: Record<string, unknown> = {},
) {
  const account = await caller.accounts.create({
    name: 'app db',
    integrationType: 'POSTGRES',
    type: 'DATABASE',
    secrets: customer.credentials,
  });
  return caller.integrations.create({
    workspaceId,
    name: 'App database',
    type: 'POSTGRES',
    accountId: account.id,
    config: { rules, ...extra },
  });
}
