import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../config';
import { connectDatabase, type Database } from '../db/client';
import { buildApp } from '../http/app';
import { createKeyring } from '../lib/crypto';
import { createLogger } from '../lib/logger';
import { policyFromConfig } from '../lib/ssrf';
import { appRouter } from '../routers/root';
import type { Actor } from '../services/auth/actor';
import { createUserWithOrganization } from '../services/auth/sign-up';
import { createPersonalAccessToken } from '../services/tokens/personal-access-tokens';
import { createWorkspace } from '../services/workspaces/workspaces';
import type { ServiceDeps } from '../services/deps';
import type { Context } from '../trpc/context';
import { createCallerFactory } from '../trpc/init';

const TEMPLATE = 'deletion_service_template';

/** A fresh database cloned from the migrated template: each test file gets its own. */
export async function createTestDatabase(): Promise<Database & { url: string }> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = connectDatabase(url.toString(), 5);
  return {
    ...database,
    url: url.toString(),
    async close() {
      await database.close();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    DATABASE_URL: 'postgresql://unused',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    // Test destinations are loopback servers.
    OUTBOUND_ALLOWLIST: '127.0.0.0/8,localhost',
    ...overrides,
  });
}

export interface TestEnv {
  db: Database & { url: string };
  deps: ServiceDeps;
  close(): Promise<void>;
}

export async function createTestEnv(configOverrides: Record<string, string> = {}): Promise<TestEnv> {
  const db = await createTestDatabase();
  const config = testConfig(configOverrides);
  const deps: ServiceDeps = {
    prisma: db.prisma,
    keyring: createKeyring(config.encryptionKey),
    config,
    log: createLogger('silent'),
    policy: policyFromConfig(config),
  };
  return { db, deps, close: () => db.close() };
}

/** A tRPC caller as the dashboard (session) or a partner (PAT) would be. */
export function callerFor(
  deps: ServiceDeps,
  auth: { sessionToken?: string; pat?: string } = {},
  channel: Context['channel'] = 'trpc',
) {
  const cookies: Record<string, string> = {};
  if (auth.sessionToken) cookies.dds_session = auth.sessionToken;
  const ctx: Context = {
    ...deps,
    channel,
    requestId: 'test',
    method: 'POST',
    ip: '127.0.0.1',
    headers: auth.pat ? { 'x-api-key': auth.pat } : {},
    cookies,
    response: { headers: {} },
    setCookie(name, value) {
      cookies[name] = value;
    },
    clearCookie(name) {
      delete cookies[name];
    },
  };
  return { caller: createCallerFactory(appRouter)(ctx), ctx };
}

let counter = 0;

/** An organization with an owner, a workspace (with its API key) and a PAT. */
export async function seedOrganization(deps: ServiceDeps, label = `org${++counter}`) {
  const email = `${label}-${randomBytes(3).toString('hex')}@example.com`;
  const { user, organization } = await createUserWithOrganization(deps.prisma, {
    email,
    password: 'correct horse battery staple',
    name: `Owner of ${label}`,
    organizationName: label,
  });
  const actor: Actor = { userId: user.id, organizationId: organization.id, role: 'OWNER', via: 'cli' };
  const workspace = await createWorkspace(deps.prisma, deps.keyring, actor, { name: `${label} workspace` });
  const pat = await createPersonalAccessToken(deps.prisma, actor, { name: 'test' });
  return {
    user,
    organization,
    actor,
    workspace,
    workspaceApiKey: workspace.apiKey,
    pat: pat.token,
    patId: pat.id,
    email,
  };
}

/** The real HTTP app on a loopback port. */
export async function startTestServer(deps: ServiceDeps) {
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      // A test that left a connection open (an upload answered 413 before its end) does not hold up the close.
      const cutOff = setTimeout(() => app.server.closeAllConnections(), 1_000);
      await app.close();
      clearTimeout(cutOff);
    },
  };
}
