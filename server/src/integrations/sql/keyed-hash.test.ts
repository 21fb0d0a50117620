import { createHash, createHmac, randomBytes } from 'node:crypto';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomerDatabase, type CustomerDatabase } from '../../test/customer-db';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { startMariaDb, type MariaDbServer } from '../../test/stores/mariadb';
import { integrationHashKey } from '../../services/integrations/hash-key';
import { closeMysqlPools } from '../mysql/sessions';
import { closeSessions } from '../postgres/sessions';
import { hmacPads } from './keyed-hash';

let env: TestEnv;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let caller: ReturnType<typeof callerFor>['caller'];
let customer: CustomerDatabase;
let mariadb: MariaDbServer;
let maria: Awaited<ReturnType<MariaDbServer['createDatabase']>>;

/** One real customer database of each dialect, with `users (email, name)`. */
interface Store {
  type: 'POSTGRES' | 'MYSQL';
  credentials: Record<string, unknown>;
  insert(email: string, name: string): Promise<void>;
  nameOf(email: string): Promise<string | null>;
}

const stores: Record<Store['type'], () => Store> = {
  POSTGRES: () => ({
    type: 'POSTGRES',
    credentials: customer.credentials,
    insert: async (email, name) => {
      await customer.pool.query(`INSERT INTO users (email, name) VALUES ($1, $2)`, [email, name]);
    },
    nameOf: async (email) =>
      (await customer.pool.query<{ name: string }>(`SELECT name FROM users WHERE email = $1`, [email])).rows[0]!.name,
  }),
  MYSQL: () => ({
    type: 'MYSQL',
    credentials: maria.credentials,
    insert: async (email, name) => {
      await maria.pool.query(`INSERT INTO users (email, name) VALUES (?, ?)`, [email, name]);
    },
    nameOf: async (email) => {
      const [rows] = await maria.pool.query(`SELECT name FROM users WHERE email = ?`, [email]);
      return (rows as { name: string }[])[0]!.name;
    },
  }),
};

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  [customer, mariadb] = await Promise.all([createCustomerDatabase(), startMariaDb()]);
  maria = await mariadb.createDatabase(
    'CREATE TABLE users (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(191) NOT NULL, name VARCHAR(200), KEY (email)) ENGINE=InnoDB;',
  );
  worker = await startTestWorker(env);
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps);
  caller = callerFor(env.deps, { pat: org.pat }).caller;
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await closeSessions();
  await closeMysqlPools();
  await maria?.close();
  await mariadb?.stop();
  await customer?.close();
  await env?.close();
});

const NAME = 'Jane Roe';
const rules = [{ table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['name'] }];
const hmacOf = (key: Buffer, value: string) => `hmac:${createHmac('sha256', key).update(value, 'utf8').digest('hex')}`;
const sha256Of = (value: string) => `sha256:${createHash('sha256').update(value, 'utf8').digest('hex')}`;
const keyOf = async (integrationId: string) =>
  (await integrationHashKey(env.deps, org.organization.id, integrationId))!;
const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`;

/** Everything the service stored about the organization's activity: audit log, integration requests and their configurations. */
async function storedTrail(): Promise<string> {
  const rows = await env.db.prisma.$queryRawUnsafe<{ row: string; exchanges: Uint8Array | null }[]>(
    // Recorded exchanges are stored compressed: read as their text too.
    `SELECT row_to_json(a)::text AS row, a.exchanges FROM "AuditLog" a WHERE a."organizationId" = $1
     UNION ALL
     SELECT row_to_json(ir)::text, NULL FROM "IntegrationRequest" ir JOIN "DeletionRequest" dr ON dr.id = ir."deletionRequestId" WHERE dr."organizationId" = $1
     UNION ALL
     SELECT row_to_json(cs)::text, NULL FROM "ConfigSnapshot" cs WHERE cs."organizationId" = $1`,
    org.organization.id,
  );
  return rows
    .map((r) => (r.exchanges ? `${r.row}\n${brotliDecompressSync(r.exchanges).toString()}` : r.row))
    .join('\n');
}

/** The key in every form that could leak: raw hex, its HMAC pads, the sealed text. */
async function keyForms(integrationId: string): Promise<string[]> {
  const key = await keyOf(integrationId);
  const pads = hmacPads(key);
  const { hashKeyCipher } = await env.db.prisma.integration.findUniqueOrThrow({ where: { id: integrationId } });
  return [key.toString('hex'), key.toString('base64'), pads.inner, pads.outer, hashKeyCipher!];
}

describe.each(['POSTGRES', 'MYSQL'] as const)('keyed hashing in a %s store', (type) => {
  let store: Store;
  let accountId: string;

  beforeAll(async () => {
    store = stores[type]();
    accountId = (
      await caller.accounts.create({
        name: `${type} db`,
        integrationType: type,
        type: 'DATABASE',
        secrets: store.credentials,
      })
    ).id;
  });

  async function newIntegration() {
    const ws = await caller.workspaces.create({ name: `ws ${Math.random()}` });
    const integration = await caller.integrations.create({
      workspaceId: ws.id,
      name: 'db',
      type,
      accountId,
      config: { rules },
    });
    return { workspaceId: ws.id, integration };
  }

  async function erase(workspaceId: string, email: string) {
    const created = await caller.deletionRequests.createInWorkspace({ workspaceId, identifier: email });
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    return done;
  }

  it("writes the HMAC-SHA256 under the integration's own key, so two integrations write different values", async () => {
    const [a, b] = [await newIntegration(), await newIntegration()];
    const [emailA, emailB] = [unique('a'), unique('b')];
    await store.insert(emailA, NAME);
    await store.insert(emailB, NAME);
    await erase(a.workspaceId, emailA);
    await erase(b.workspaceId, emailB);
    const [keyA, keyB] = [await keyOf(a.integration.id), await keyOf(b.integration.id)];
    expect(keyA.length).toBe(32);
    expect(await store.nameOf(emailA)).toBe(hmacOf(keyA, NAME));
    expect(await store.nameOf(emailB)).toBe(hmacOf(keyB, NAME));
    expect(await store.nameOf(emailA)).not.toBe(await store.nameOf(emailB));
    expect(await store.nameOf(emailA)).not.toBe(sha256Of(NAME));
  });

  it('a rotated key gives a new value for later requests; values written before stay as they are', async () => {
    const { workspaceId, integration } = await newIntegration();
    const [before, after] = [unique('before'), unique('after')];
    await store.insert(before, NAME);
    await store.insert(after, NAME);
    await erase(workspaceId, before);
    const oldKey = await keyOf(integration.id);
    const rotated = await caller.integrations.rotateHashKey({ integrationId: integration.id });
    expect(Object.keys(rotated).sort()).toEqual(['integrationId', 'rotatedAt']);
    const newKey = await keyOf(integration.id);
    expect(newKey.equals(oldKey)).toBe(false);
    await erase(workspaceId, after);
    expect(await store.nameOf(after)).toBe(hmacOf(newKey, NAME));
    expect(await store.nameOf(after)).not.toBe(hmacOf(oldKey, NAME));
    expect(await store.nameOf(before)).toBe(hmacOf(oldKey, NAME));
    const audit = await env.db.prisma.auditLog.findFirstOrThrow({
      where: { organizationId: org.organization.id, action: 'integration.hash_key_rotated' },
      orderBy: { createdAt: 'desc' },
    });
    expect(audit).toMatchObject({ actorId: org.user.id, details: { integrationId: integration.id } });
  });

  it('a value already hashed the unkeyed way (sha256:) counts as done: verified, not hashed again', async () => {
    const { workspaceId } = await newIntegration();
    const email = unique('legacy');
    await store.insert(email, sha256Of(NAME));
    const done = await erase(workspaceId, email);
    const evidence = done.integrationRequests[0]!.evidence as { changed: Record<string, number> };
    expect(Object.values(evidence.changed)).toEqual([0]);
    expect(await store.nameOf(email)).toBe(sha256Of(NAME));
    const { rules: dry } = await caller.integrations.dryRun({ accountId, config: { rules }, identifier: email });
    expect(dry.map((r) => r.rows)).toEqual([0]);
  });

  it('an integration made before keyed hashing (no key stored) gets one at its next deletion', async () => {
    const { workspaceId, integration } = await newIntegration();
    await env.db.prisma.integration.update({ where: { id: integration.id }, data: { hashKeyCipher: null } });
    const email = unique('older');
    await store.insert(email, NAME);
    await erase(workspaceId, email);
    const { hashKeyCipher } = await env.db.prisma.integration.findUniqueOrThrow({ where: { id: integration.id } });
    expect(hashKeyCipher).toMatch(/^v2:/);
    expect(await store.nameOf(email)).toBe(hmacOf(await keyOf(integration.id), NAME));
  });

  it('a request still in flight when its integration is deleted fails its hash rule; nothing unkeyed is written', async () => {
    const ws = await caller.workspaces.create({ name: `ws ${Math.random()}` });
    const hour = new Date().getUTCHours();
    const maintenanceWindow = { startHourUtc: (hour + 2) % 24, endHourUtc: (hour + 3) % 24 };
    const integration = await caller.integrations.create({
      workspaceId: ws.id,
      name: 'db',
      type,
      accountId,
      config: { rules, maintenanceWindow },
    });
    const email = unique('orphan');
    await store.insert(email, NAME);
    const created = await caller.deletionRequests.createInWorkspace({ workspaceId: ws.id, identifier: email });
    await waitForRequest(env, created.id, ['PENDING']);
    await caller.integrations.delete({ integrationId: integration.id });
    // The window opens now: the request runs with its snapshot, without its integration.
    const snapshot = await env.db.prisma.configSnapshot.create({
      data: { id: randomBytes(32), organizationId: org.organization.id, config: { rules } },
    });
    await env.db.prisma.integrationRequest.updateMany({
      where: { deletionRequestId: created.id },
      data: { configSnapshotId: snapshot.id, nextAttemptAt: new Date() },
    });
    const done = await waitForRequest(env, created.id, ['FAILED', 'ERROR']);
    expect(done.integrationRequests[0]!.lastError).toMatch(/no hash key \(it was deleted/);
    expect(await store.nameOf(email)).toBe(NAME);
  });

  it('the key is in no API answer (tRPC and REST) and nowhere in the audit trail or the recorded SQL', async () => {
    const { workspaceId, integration } = await newIntegration();
    const email = unique('trail');
    await store.insert(email, NAME);
    await erase(workspaceId, email);
    const response = await fetch(`${server.baseUrl}/api/public/integrations/${integration.id}/rotate-hash-key`, {
      method: 'POST',
      headers: { 'x-api-key': org.pat, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    const rest = await response.text();
    expect(JSON.parse(rest)).toEqual({ integrationId: integration.id, rotatedAt: expect.any(String) });
    await erase(workspaceId, email);
    const answers = JSON.stringify([
      integration,
      await caller.integrations.get({ integrationId: integration.id }),
      await caller.integrations.list({}),
      await caller.integrations.update({ integrationId: integration.id, name: 'renamed' }),
      await caller.integrations.setEnabled({ integrationId: integration.id, enabled: true }),
      rest,
    ]);
    expect(answers).not.toMatch(/hashKey/i);
    const trail = await storedTrail();
    // The recorded statement computes the HMAC from bound parameters.
    expect(trail).toMatch(/UPDATE .*SET .*hmac:/);
    for (const form of await keyForms(integration.id)) {
      expect(answers).not.toContain(form);
      expect(trail).not.toContain(form);
    }
  });
});

describe('rotating a hash key', () => {
  it('is refused for a type that writes no hashes (400), for another organization (404), and for a scoped token (403)', async () => {
    const ws = await caller.workspaces.create({ name: 'webhooks' });
    const hook = await caller.integrations.create({
      workspaceId: ws.id,
      name: 'hook',
      type: 'WEBHOOK',
      config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
    });
    await expect(caller.integrations.rotateHashKey({ integrationId: hook.id })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    const other = await seedOrganization(env.deps, 'other');
    await expect(
      callerFor(env.deps, { pat: other.pat }).caller.integrations.rotateHashKey({ integrationId: hook.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const scoped = await caller.tokens.create({ name: 'reader', scopes: ['requests:read'] });
    const response = await fetch(`${server.baseUrl}/api/public/integrations/${hook.id}/rotate-hash-key`, {
      method: 'POST',
      headers: { 'x-api-key': scoped.token, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(403);
  });
});
