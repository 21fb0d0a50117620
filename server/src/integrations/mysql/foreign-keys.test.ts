import { afterAll, beforeAll, describe } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker } from '../../test/engine';
import { foreignKeyScenario, type ForeignKeyDatabase } from '../../test/foreign-key-scenario';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { startMariaDb, type MariaDbServer } from '../../test/stores/mariadb';
import { closeDrivers } from '../registry';

let env: TestEnv;
let server: MariaDbServer;
let customer: Awaited<ReturnType<MariaDbServer['createDatabase']>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let caller: ReturnType<typeof callerFor>['caller'];
let workspaceId: string;
let db: ForeignKeyDatabase;

beforeAll(async () => {
  server = await startMariaDb();
  customer = await server.createDatabase(`
    CREATE TABLE users (id BIGINT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(191) NOT NULL, referred_by BIGINT NULL,
      KEY (email), CONSTRAINT users_referrer FOREIGN KEY (referred_by) REFERENCES users(id)) ENGINE=InnoDB;
    CREATE TABLE orders (id BIGINT AUTO_INCREMENT PRIMARY KEY, note TEXT, user_id BIGINT NOT NULL,
      CONSTRAINT orders_user FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE RESTRICT) ENGINE=InnoDB;
    CREATE TABLE order_items (order_id BIGINT NOT NULL, line INT NOT NULL, sku VARCHAR(40), PRIMARY KEY (order_id, line),
      CONSTRAINT items_order FOREIGN KEY (order_id) REFERENCES orders(id)) ENGINE=InnoDB;
    CREATE TABLE shipments (id BIGINT AUTO_INCREMENT PRIMARY KEY, order_id BIGINT NULL, line INT NULL, carrier VARCHAR(40),
      CONSTRAINT shipments_item FOREIGN KEY (order_id, line) REFERENCES order_items(order_id, line) ON DELETE SET NULL) ENGINE=InnoDB;
    CREATE TABLE sessions (id BIGINT AUTO_INCREMENT PRIMARY KEY, token VARCHAR(80), user_id BIGINT NOT NULL,
      CONSTRAINT sessions_user FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE) ENGINE=InnoDB;`);
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  worker = await startTestWorker(env);
  const org = await seedOrganization(env.deps);
  caller = callerFor(env.deps, { pat: org.pat }).caller;
  workspaceId = org.workspace.id;
  const account = await caller.accounts.create({
    name: 'app db',
    integrationType: 'MYSQL',
    type: 'DATABASE',
    secrets: customer.credentials,
  });
  db = {
    type: 'MYSQL',
    schema: customer.name,
    accountId: account.id,
    async insert(table, row) {
      const names = Object.keys(row);
      const [result] = await customer.pool.query(
        `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
        Object.values(row),
      );
      return Number((result as { insertId: number }).insertId);
    },
    count: (sql, values = []) => customer.count(sql, values),
  };
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await closeDrivers();
  await env?.close();
  await customer?.close();
  await server?.stop();
});

describe('foreign keys on a real MariaDB', () => {
  foreignKeyScenario(() => ({ env, caller, workspaceId, db }));
});
