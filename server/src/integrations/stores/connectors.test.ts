import { DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { startAllStores } from '../../test/stores/all-stores';
import { tableWithEmailIndex } from '../../test/stores/dynalite';
import type { MariaDbServer } from '../../test/stores/mariadb';
import { closeDrivers, driverFor } from '../registry';
import { openMysqlPools } from '../mysql/sessions';
import { openRedisClients } from '../redis/execute';

/**
 * The four data stores as connectors of the service, end to end through the API a user has:
 * write-only accounts with their hosts and endpoints checked, save-time checks against the
 * store itself, discovery, dry run, and a deletion request run by the worker to SUCCESS with
 * the proof in the audit trail and no identifier in it.
 */
let env: TestEnv;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let caller: ReturnType<typeof callerFor>['caller'];
let mariadb: MariaDbServer;
let db: Awaited<ReturnType<MariaDbServer['createDatabase']>>;
let stores: Awaited<ReturnType<typeof startAllStores>>;
let redis: typeof stores.redis;
let s3: typeof stores.s3;
let dynamo: typeof stores.dynamo;

beforeAll(async () => {
  stores = await startAllStores(['exports']);
  ({ mariadb, redis, s3, dynamo } = stores);
  db = await mariadb.createDatabase(`
    CREATE TABLE users (id INT PRIMARY KEY, email VARCHAR(191) NOT NULL, KEY (email)) ENGINE=InnoDB;
    CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, user_id INT NOT NULL, email VARCHAR(191) NOT NULL, FOREIGN KEY (user_id) REFERENCES users(id)) ENGINE=InnoDB;`);
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  worker = await startTestWorker(env);
  const org = await seedOrganization(env.deps);
  caller = callerFor(env.deps, { pat: org.pat }).caller;
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await closeDrivers();
  await env?.close();
  await db?.close();
  await stores?.stop();
});

/** A new workspace whose only integration is `integration`, and one request for `identifier` run to its end. */
async function runRequest(
  integration: { type: 'MYSQL' | 'REDIS' | 'S3' | 'DYNAMODB'; accountId: string; config: unknown },
  identifier: string,
) {
  const ws = await caller.workspaces.create({ name: `ws ${Math.random()}` });
  await caller.integrations.create({ workspaceId: ws.id, name: 'store', ...integration });
  const created = await caller.deletionRequests.createInWorkspace({ workspaceId: ws.id, identifier });
  const done = await waitForRequest(env, created.id);
  const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: done.id });
  return { done, trail };
}

const step = (trail: { action: string; details: unknown }[]) =>
  trail.find((e) => e.action === 'deletion.requested')!.details as {
    exchanges: { kind: string; statement: string }[];
    evidence: { changed: Record<string, number>; remaining: Record<string, number> };
  };

describe('data stores on the connector registry', () => {
  it('every store has a driver with the hooks its store supports', () => {
    for (const type of ['MYSQL', 'S3', 'DYNAMODB'] as const)
      expect(driverFor(type)).toMatchObject({
        validateConfig: expect.any(Function),
        discover: expect.any(Function),
        dryRun: expect.any(Function),
        close: expect.any(Function),
      });
    // Redis has no schema: no discovery and nothing to check rules against, but a dry run.
    expect(driverFor('REDIS')).toMatchObject({ dryRun: expect.any(Function), close: expect.any(Function) });
    expect(driverFor('REDIS').discover).toBeUndefined();
  });

  it('accounts are write-only: hints show the fields the account type declares public, never a password or secret key', async () => {
    const mysqlAccount = await caller.accounts.create({
      name: 'shop db',
      integrationType: 'MYSQL',
      type: 'DATABASE',
      secrets: db.credentials,
    });
    expect(mysqlAccount.secretHints).toMatchObject({
      host: '127.0.0.1',
      database: db.name,
      user: 'app',
      password: '••••',
    });
    const redisAccount = await caller.accounts.create({
      name: 'cache',
      integrationType: 'REDIS',
      type: 'REDIS',
      secrets: redis.credentials,
    });
    expect(redisAccount.secretHints).toMatchObject({ host: '127.0.0.1', port: String(redis.port), password: '••••' });
    const aws = await caller.accounts.create({
      name: 'aws',
      integrationType: 'S3',
      type: 'AWS',
      secrets: { ...s3.credentials, secretAccessKey: 'a-secret-access-key-0123456789' },
    });
    expect(aws.secretHints).toMatchObject({
      accessKeyId: 'S3RVER',
      region: 'us-east-1',
      endpoint: s3.endpoint,
      secretAccessKey: '••••6789',
    });
    expect(JSON.stringify(await caller.accounts.list())).not.toContain('a-secret-access-key');
    expect(JSON.stringify(await caller.accounts.list())).not.toContain(db.credentials.password);
  });

  it('hosts and endpoints outside the outbound policy are refused at save time, on their field', async () => {
    await expect(
      caller.accounts.create({
        name: 'r',
        integrationType: 'REDIS',
        type: 'REDIS',
        secrets: { host: '169.254.169.254' },
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      cause: expect.objectContaining({ details: { issues: [expect.objectContaining({ path: ['secrets', 'host'] })] } }),
    });
    await expect(
      caller.accounts.create({
        name: 'a',
        integrationType: 'DYNAMODB',
        type: 'AWS',
        secrets: { accessKeyId: 'AKID', secretAccessKey: 'x', endpoint: 'http://10.1.2.3:8000' },
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      cause: expect.objectContaining({
        details: { issues: [expect.objectContaining({ path: ['secrets', 'endpoint'] })] },
      }),
    });
    // An account of the wrong kind for the store is refused too.
    await expect(
      caller.accounts.create({ name: 'x', integrationType: 'S3', type: 'REDIS', secrets: redis.credentials }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('MySQL/MariaDB: discovery, rule checks at save time, dry run, and a request to SUCCESS that spares the look-alike', async () => {
    const account = await caller.accounts.create({
      name: 'shop db',
      integrationType: 'MYSQL',
      type: 'DATABASE',
      secrets: db.credentials,
    });
    const tables = await caller.integrations.discoverSchema({ accountId: account.id });
    expect(tables.map((t) => t.table).sort()).toEqual(['orders', 'users']);
    expect(tables.find((t) => t.table === 'users')!.referencedBy).toEqual([`${db.name}.orders`]);

    const ws = await caller.workspaces.create({ name: 'checks' });
    const save = (rules: unknown[]) =>
      caller.integrations.create({
        workspaceId: ws.id,
        name: 'bad',
        type: 'MYSQL',
        accountId: account.id,
        config: { rules },
      });
    await expect(save([{ table: 'nope', identifierColumns: ['email'], action: 'delete' }])).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining(`${db.name}.nope does not exist`),
    });
    await expect(
      save([{ table: 'users', identifierColumns: ['email'], action: 'set_null', columns: ['email'] }]),
    ).rejects.toMatchObject({ message: expect.stringContaining('NOT NULL') });

    await db.pool.query(
      `INSERT INTO users VALUES (1, 'jane@example.com'), (2, 'JANE@example.com'), (3, 'jané@example.com')`,
    );
    await db.pool.query(
      `INSERT INTO orders (user_id, email) VALUES (1, 'jane@example.com'), (1, 'jane@example.com'), (2, 'JANE@example.com')`,
    );
    // Users before orders: the deletion runs them children first, from the foreign keys.
    const config = {
      rules: [
        { table: 'users', identifierColumns: ['email'], action: 'delete' },
        { table: 'orders', identifierColumns: ['email'], action: 'delete' },
      ],
    };
    const preview = await caller.integrations.dryRun({ accountId: account.id, identifier: 'jane@example.com', config });
    // The dry run counts in the order the deletion runs.
    expect(preview.rules.map((r) => [r.table, r.rows])).toEqual([
      [`${db.name}.orders`, 2],
      [`${db.name}.users`, 1],
    ]);
    expect(preview.statements.join('\n')).not.toContain('jane@example.com');
    expect(await db.count('SELECT COUNT(*) FROM orders')).toBe(3);

    const { done, trail } = await runRequest({ type: 'MYSQL', accountId: account.id, config }, 'jane@example.com');
    expect(done.status).toBe('SUCCESS');
    expect(step(trail).evidence.remaining).toEqual({
      [`delete on ${db.name}.orders`]: 0,
      [`delete on ${db.name}.users`]: 0,
    });
    expect(JSON.stringify(trail)).not.toContain('jane@example.com');
    expect(await db.count('SELECT COUNT(*) FROM users')).toBe(2);
    expect(await db.count('SELECT COUNT(*) FROM orders')).toBe(1);
    expect(openMysqlPools()).toBeGreaterThan(0);
  });

  it('Redis: dry run counts, a request removes keys, hash fields and set members and verifies', async () => {
    const account = await caller.accounts.create({
      name: 'cache',
      integrationType: 'REDIS',
      type: 'REDIS',
      secrets: redis.credentials,
    });
    await expect(caller.integrations.discoverSchema({ accountId: account.id })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Redis accounts have nothing to discover',
    });
    await redis.client.set('user:ann@example.com:profile', '1');
    await redis.client.set('user:ann@example.com:cart', '1');
    await redis.client.set('user:anna@example.com:profile', '1');
    await redis.client.hSet('emails', { 'ann@example.com': '1', 'bob@example.com': '1' });
    await redis.client.sAdd('newsletter', ['ann@example.com', 'bob@example.com']);
    const config = {
      rules: [
        { kind: 'keys', pattern: 'user:{{identifier}}:*' },
        { kind: 'hash_field', key: 'emails', field: '{{identifier}}' },
        { kind: 'set_member', key: 'newsletter', member: '{{identifier}}' },
      ],
    };
    const preview = await caller.integrations.dryRun({ accountId: account.id, identifier: 'ann@example.com', config });
    expect(preview.rules.map((r) => r.rows)).toEqual([2, 1, 1]);
    expect(preview.statements.some((s) => s.startsWith('SCAN'))).toBe(true);

    const { done, trail } = await runRequest({ type: 'REDIS', accountId: account.id, config }, 'ann@example.com');
    expect(done.status).toBe('SUCCESS');
    expect(JSON.stringify(trail)).not.toContain('ann@example.com');
    expect(await redis.client.keys('user:*')).toEqual(['user:anna@example.com:profile']);
    expect(await redis.client.hKeys('emails')).toEqual(['bob@example.com']);
    expect(await redis.client.sMembers('newsletter')).toEqual(['bob@example.com']);
    expect(openRedisClients()).toBeGreaterThan(0);
  });

  it('S3: the bucket is checked at save time, buckets are discovered, a request erases the objects and verifies', async () => {
    const account = await caller.accounts.create({
      name: 'aws',
      integrationType: 'S3',
      type: 'AWS',
      secrets: s3.credentials,
    });
    expect((await caller.integrations.discoverSchema({ accountId: account.id })).map((t) => t.table)).toEqual([
      'exports',
    ]);
    const ws = await caller.workspaces.create({ name: 'bucket check' });
    await expect(
      caller.integrations.create({
        workspaceId: ws.id,
        name: 'x',
        type: 'S3',
        accountId: account.id,
        config: { bucket: 'missing-bucket', rules: [{ kind: 'prefix', prefix: 'u/{{identifier}}/' }] },
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Bucket missing-bucket does not exist',
      cause: expect.objectContaining({
        details: { issues: [expect.objectContaining({ path: ['config', 'bucket'] })] },
      }),
    });

    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      credentials: s3.credentials,
      forcePathStyle: true,
    });
    try {
      for (const Key of [
        'u/kim@example.com/a.json',
        'u/kim@example.com/b.json',
        'u/kimberly@example.com/a.json',
        'avatars/kim@example.com.png',
      ]) {
        await client.send(new PutObjectCommand({ Bucket: 'exports', Key, Body: 'x' }));
      }
      const config = {
        bucket: 'exports',
        rules: [
          { kind: 'prefix', prefix: 'u/{{identifier}}/' },
          { kind: 'key', key: 'avatars/{{identifier}}.png' },
        ],
      };
      const preview = await caller.integrations.dryRun({
        accountId: account.id,
        identifier: 'kim@example.com',
        config,
      });
      expect(preview.rules.map((r) => r.rows)).toEqual([2, 1]);
      expect(preview.rules[0]!.sample).toEqual(['u/kim@example.com/a.json', 'u/kim@example.com/b.json']);

      const { done, trail } = await runRequest({ type: 'S3', accountId: account.id, config }, 'kim@example.com');
      expect(done.status).toBe('SUCCESS');
      expect(JSON.stringify(trail)).not.toContain('kim@example.com');
      const left = (await client.send(new ListObjectsV2Command({ Bucket: 'exports' }))).Contents?.map((o) => o.Key);
      expect(left).toEqual(['u/kimberly@example.com/a.json']);
    } finally {
      client.destroy();
    }
  });

  it('DynamoDB: tables, keys and indexes are discovered and checked at save time; a request deletes the items and verifies', async () => {
    const client = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: dynamo.credentials,
    });
    try {
      await client.send(tableWithEmailIndex('sessions', 'sessionId'));
      for (const [sessionId, email] of [
        ['s1', 'lee@example.com'],
        ['s2', 'lee@example.com'],
        ['s3', 'Lee@example.com'],
      ]) {
        await client.send(
          new PutItemCommand({ TableName: 'sessions', Item: { sessionId: { S: sessionId! }, email: { S: email! } } }),
        );
      }
      const account = await caller.accounts.create({
        name: 'aws',
        integrationType: 'DYNAMODB',
        type: 'AWS',
        secrets: dynamo.credentials,
      });
      const tables = await caller.integrations.discoverSchema({ accountId: account.id });
      expect(tables).toEqual([
        expect.objectContaining({
          table: 'sessions',
          keys: { partitionKey: 'sessionId' },
          indexes: [{ name: 'by-email', kind: 'global', partitionKey: 'email' }],
        }),
      ]);

      const ws = await caller.workspaces.create({ name: 'table check' });
      const save = (rules: unknown[]) =>
        caller.integrations.create({
          workspaceId: ws.id,
          name: 'x',
          type: 'DYNAMODB',
          accountId: account.id,
          config: { rules },
        });
      await expect(save([{ kind: 'partition', table: 'nothing' }])).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('Table nothing does not exist'),
      });
      await expect(save([{ kind: 'index', table: 'sessions', index: 'by-mail' }])).rejects.toMatchObject({
        message: 'Table sessions has no index by-mail (its secondary indexes: by-email)',
        cause: expect.objectContaining({
          details: { issues: [expect.objectContaining({ path: ['config', 'rules', 0, 'index'] })] },
        }),
      });

      const config = { rules: [{ kind: 'index', table: 'sessions', index: 'by-email' }] };
      const preview = await caller.integrations.dryRun({
        accountId: account.id,
        identifier: 'lee@example.com',
        config,
      });
      expect(preview.rules.map((r) => r.rows)).toEqual([2]);
      const { done, trail } = await runRequest({ type: 'DYNAMODB', accountId: account.id, config }, 'lee@example.com');
      expect(done.status).toBe('SUCCESS');
      expect(step(trail).evidence).toMatchObject({
        changed: { 'items of sessions by index by-email': 2 },
        remaining: { 'items of sessions by index by-email': 0 },
      });
      expect(JSON.stringify(trail)).not.toContain('lee@example.com');
      expect((await client.send(new ScanCommand({ TableName: 'sessions' }))).Items?.map((i) => i.sessionId!.S)).toEqual(
        ['s3'],
      );
    } finally {
      client.destroy();
    }
  });

  it('closing the drivers closes every kept pool and client (shutdown)', async () => {
    expect(openMysqlPools() + openRedisClients()).toBeGreaterThan(0);
    await closeDrivers();
    expect(openMysqlPools()).toBe(0);
    expect(openRedisClients()).toBe(0);
  });
});
