import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../server/src/config';
import { connectDatabase, type Database } from '../../server/src/db/client';
import { createKeyring } from '../../server/src/lib/crypto';
import { createLogger } from '../../server/src/lib/logger';
import { ID_PREFIX, newId } from '../../server/src/lib/ids';
import { policyFromConfig } from '../../server/src/lib/ssrf';
import { appRouter } from '../../server/src/routers/root';
import type { Actor } from '../../server/src/services/auth/actor';
import { createSession } from '../../server/src/services/auth/sessions';
import { createUserWithOrganization } from '../../server/src/services/auth/sign-up';
import { createPersonalAccessToken } from '../../server/src/services/tokens/personal-access-tokens';
import { createWorkspace } from '../../server/src/services/workspaces/workspaces';
import type { ServiceDeps } from '../../server/src/services/deps';
import type { Context } from '../../server/src/trpc/context';
import { createCallerFactory } from '../../server/src/trpc/init';

const createCaller = createCallerFactory(appRouter);

/** The same master key for the bench's own seeding and the service processes it starts. */
export const BENCH_ENCRYPTION_KEY = randomBytes(32).toString('base64');
export const BENCH_PASSWORD = 'correct horse battery staple';

export function benchConfig(databaseUrl: string): Config {
  return loadConfig({
    ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://127.0.0.1:3000',
    OUTBOUND_ALLOWLIST: '127.0.0.0/8',
  });
}

export interface SeededWorkspace {
  id: string;
  apiKey: string;
}

export interface SeededOrganization {
  database: Database;
  deps: ServiceDeps;
  organizationId: string;
  ownerId: string;
  ownerEmail: string;
  pat: string;
  /** A second member, so the user list has someone else's requests to skip. */
  memberId: string;
  workspaces: SeededWorkspace[];
  caller: ReturnType<typeof createCaller>;
  sessionToken(): Promise<string>;
  close(): Promise<void>;
}

/** An organization with an owner (and a PAT), a second member and `workspaceCount` workspaces. */
export async function seedOrganization(databaseUrl: string, workspaceCount = 1): Promise<SeededOrganization> {
  const config = benchConfig(databaseUrl);
  const database = connectDatabase(databaseUrl, 4);
  const deps: ServiceDeps = {
    prisma: database.prisma,
    keyring: createKeyring(config.encryptionKey),
    config,
    log: createLogger('silent'),
    policy: policyFromConfig(config),
  };
  const ownerEmail = `owner-${randomBytes(3).toString('hex')}@bench.example`;
  const { user, organization } = await createUserWithOrganization(deps.prisma, {
    email: ownerEmail,
    password: BENCH_PASSWORD,
    name: 'Bench Owner',
    organizationName: 'Bench Org',
  });
  const actor: Actor = { userId: user.id, organizationId: organization.id, role: 'OWNER', via: 'cli' };
  const memberId = newId(ID_PREFIX.user);
  await deps.prisma.user.create({
    data: {
      id: memberId,
      email: `member-${randomBytes(3).toString('hex')}@bench.example`,
      name: 'Bench Member',
      passwordHash: 'x',
    },
  });
  await deps.prisma.membership.create({
    data: { id: newId(ID_PREFIX.membership), userId: memberId, organizationId: organization.id, role: 'MEMBER' },
  });
  const workspaces: SeededWorkspace[] = [];
  for (let i = 0; i < workspaceCount; i++) {
    const ws = await createWorkspace(deps.prisma, deps.keyring, actor, { name: `Bench workspace ${i + 1}` });
    workspaces.push({ id: ws.id, apiKey: ws.apiKey });
  }
  const pat = await createPersonalAccessToken(deps.prisma, actor, { name: 'bench' });
  const ctx: Context = {
    ...deps,
    channel: 'trpc',
    requestId: 'bench',
    method: 'POST',
    ip: '127.0.0.1',
    headers: { 'x-api-key': pat.token },
    cookies: {},
    response: { headers: {} },
    setCookie() {},
    clearCookie() {},
  };
  return {
    database,
    deps,
    organizationId: organization.id,
    ownerId: user.id,
    ownerEmail,
    pat: pat.token,
    memberId,
    workspaces,
    caller: createCaller(ctx),
    sessionToken: () => createSession(deps.prisma, user.id, organization.id),
    close: () => database.close(),
  };
}

/** A sync webhook integration calling `url` with the identifier, as partners configure them. */
export async function addWebhookIntegration(
  org: SeededOrganization,
  workspaceId: string,
  url: string,
  name = 'Internal CRM',
) {
  const account = await org.caller.accounts.create({
    name: `${name} secrets`,
    integrationType: 'WEBHOOK',
    type: 'KEY_VALUE',
    secrets: { token: 'bench-webhook-token' },
  });
  return org.caller.integrations.create({
    workspaceId,
    name,
    type: 'WEBHOOK',
    accountId: account.id,
    config: {
      mode: 'sync',
      initiate: {
        method: 'POST',
        url,
        headers: { Authorization: 'Bearer {{token}}' },
        body: '{"email":"{{identifier}}"}',
      },
    },
  });
}

export const CUSTOMER_RULES = [
  { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
  { table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
  { table: 'users', identifierColumns: ['email'], action: 'delete' },
];

/** A PostgreSQL integration deleting a subject's rows from the customer database at `customerUrl`. */
export async function addPostgresIntegration(org: SeededOrganization, workspaceId: string, customerUrl: string) {
  const account = await addPostgresAccount(org, customerUrl);
  return org.caller.integrations.create({
    workspaceId,
    name: 'App database',
    type: 'POSTGRES',
    accountId: account.id,
    config: { rules: CUSTOMER_RULES },
  });
}

/** The organization's database account for the customer database at `customerUrl`. */
export async function addPostgresAccount(org: SeededOrganization, customerUrl: string) {
  const url = new URL(customerUrl);
  return org.caller.accounts.create({
    name: 'App database',
    integrationType: 'POSTGRES',
    type: 'DATABASE',
    secrets: {
      host: '127.0.0.1',
      port: Number(url.port),
      database: url.pathname.slice(1),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      sslMode: 'disable',
    },
  });
}

/** A customer's application database: users, their orders and events, indexed on the identifier columns. */
export async function prepareCustomerDatabase(
  url: string,
  subjects: string[],
  bystanders: number,
  options: { indexOrdersByUser?: boolean } = {},
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Without the index by user (as the loop's and the service's measured tables are), deleting a
    // user reads all of `orders` for the foreign key's check.
    await client.query(`
      DROP TABLE IF EXISTS orders, events, users;
      CREATE TABLE users (id bigserial PRIMARY KEY, email text UNIQUE NOT NULL, name text);
      CREATE TABLE orders (id bigserial PRIMARY KEY, user_id bigint NOT NULL REFERENCES users(id), customer_email text NOT NULL, total numeric(10,2) NOT NULL);
      CREATE INDEX ON orders (customer_email);${options.indexOrdersByUser ? '\n      CREATE INDEX ON orders (user_id);' : ''}
      CREATE TABLE events (id bigserial PRIMARY KEY, distinct_id text, kind text NOT NULL);
      CREATE INDEX ON events (distinct_id);`);
    const emails = [...subjects, ...Array.from({ length: bystanders }, (_, i) => `bystander-${i}@customer.example`)];
    await client.query(`INSERT INTO users (email, name) SELECT e, 'Name' FROM unnest($1::text[]) e`, [emails]);
    await client.query(
      `INSERT INTO orders (user_id, customer_email, total) SELECT u.id, u.email, 10 FROM users u, generate_series(1, 2)`,
    );
    await client.query(
      `INSERT INTO events (distinct_id, kind) SELECT u.email, 'page_view' FROM users u, generate_series(1, 3)`,
    );
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** Subject rows still present in the customer database. */
export async function remainingSubjects(url: string, subjects: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM users WHERE email = ANY($1)) + (SELECT count(*) FROM orders WHERE customer_email = ANY($1)) + (SELECT count(*) FROM events WHERE distinct_id = ANY($1)) AS n`,
      [subjects],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
