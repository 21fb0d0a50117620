import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { createCustomerDatabase, type CustomerDatabase } from '../../test/customer-db';
import { FAST_ENGINE_CONFIG, startTestWorker } from '../../test/engine';
import { foreignKeyScenario, type ForeignKeyDatabase } from '../../test/foreign-key-scenario';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';

let env: TestEnv;
let customer: CustomerDatabase;
let app: pg.Pool;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let caller: ReturnType<typeof callerFor>['caller'];
let workspaceId: string;
let db: ForeignKeyDatabase;

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  customer = await createCustomerDatabase();
  // In a schema of its own, beside the customer database's public tables of the same names.
  await customer.pool.query(`
    CREATE SCHEMA app;
    CREATE TABLE app.users (id bigserial PRIMARY KEY, email text NOT NULL,
      referred_by bigint CONSTRAINT users_referrer REFERENCES app.users(id));
    CREATE TABLE app.orders (id bigserial PRIMARY KEY, note text,
      user_id bigint NOT NULL CONSTRAINT orders_user REFERENCES app.users(id) ON DELETE RESTRICT);
    CREATE TABLE app.order_items (order_id bigint NOT NULL CONSTRAINT items_order REFERENCES app.orders(id),
      line int NOT NULL, sku text, PRIMARY KEY (order_id, line));
    CREATE TABLE app.shipments (id bigserial PRIMARY KEY, order_id bigint, line int, carrier text,
      CONSTRAINT shipments_item FOREIGN KEY (order_id, line) REFERENCES app.order_items(order_id, line) ON DELETE SET NULL);
    CREATE TABLE app.sessions (id bigserial PRIMARY KEY, token text,
      user_id bigint NOT NULL CONSTRAINT sessions_user REFERENCES app.users(id) ON DELETE CASCADE);
  `);
  app = new pg.Pool({ connectionString: customer.url, max: 2, options: '-c search_path=app' });
  worker = await startTestWorker(env);
  const org = await seedOrganization(env.deps);
  caller = callerFor(env.deps, { pat: org.pat }).caller;
  workspaceId = org.workspace.id;
  const account = await caller.accounts.create({
    name: 'app db',
    integrationType: 'POSTGRES',
    type: 'DATABASE',
    secrets: customer.credentials,
  });
  const numbered = (sql: string) =>
    sql.replace(
      /\?/g,
      (
        (n) => () =>
          `$${++n}`
      )(0),
    );
  db = {
    type: 'POSTGRES',
    schema: 'app',
    accountId: account.id,
    async insert(table, row) {
      const names = Object.keys(row);
      const { rows } = await app.query(
        `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`,
        Object.values(row),
      );
      return Number(rows[0].id ?? 0);
    },
    async count(sql, values = []) {
      const { rows } = await app.query(numbered(sql), values);
      return Number(Object.values(rows[0] as object)[0]);
    },
  };
});
afterAll(async () => {
  await worker?.stop();
  await app?.end();
  await customer?.close();
  await env?.close();
});

describe('foreign keys on a real PostgreSQL', () => {
  foreignKeyScenario(() => ({ env, caller, workspaceId, db }));
});
