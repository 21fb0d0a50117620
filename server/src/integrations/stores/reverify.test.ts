import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedDetails } from '../../services/audit/recorded-exchanges';
import { runReverification } from '../../jobs/reverify';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { startAllStores } from '../../test/stores/all-stores';
import type { MariaDbServer } from '../../test/stores/mariadb';
import { closeDrivers } from '../registry';

/**
 * Re-verification reaches every data store, not only PostgreSQL: one workspace deletes two
 * subjects from MySQL/MariaDB, Redis, S3 and DynamoDB (each a real server or emulator); one
 * subject's data is then written back everywhere (a restored backup), and the job run some
 * days later finds it in each store, by the same read that proved the deletion.
 */
const DAY_MS = 86_400_000;
const BACK = 'back@example.com';
const GONE = 'gone@example.com';

let env: TestEnv;
let mariadb: MariaDbServer;
let db: Awaited<ReturnType<MariaDbServer['createDatabase']>>;
let stores: Awaited<ReturnType<typeof startAllStores>>;
let redis: typeof stores.redis;
let s3: typeof stores.s3;
let dynamo: typeof stores.dynamo;
let s3Client: S3Client;
let dynamoClient: DynamoDBClient;
let organizationId: string;
const requestIds: Record<string, string> = {};
let finishedAt: Date;

/** Writes the subject's data into all four stores. */
async function writeSubject(identifier: string, id: number) {
  await db.pool.query('INSERT INTO users VALUES (?, ?)', [id, identifier]);
  await redis.client.set(`user:${identifier}:profile`, '1');
  await s3Client.send(new PutObjectCommand({ Bucket: 'exports', Key: `u/${identifier}/a.json`, Body: 'x' }));
  await dynamoClient.send(new PutItemCommand({ TableName: 'profiles', Item: { email: { S: identifier } } }));
}

beforeAll(async () => {
  stores = await startAllStores(['exports']);
  ({ mariadb, redis, s3, dynamo } = stores);
  db = await mariadb.createDatabase(
    'CREATE TABLE users (id INT PRIMARY KEY, email VARCHAR(191) NOT NULL, KEY (email)) ENGINE=InnoDB;',
  );
  s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    credentials: s3.credentials,
    forcePathStyle: true,
  });
  dynamoClient = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: dynamo.credentials,
  });
  await dynamoClient.send(
    new CreateTableCommand({
      TableName: 'profiles',
      KeySchema: [{ AttributeName: 'email', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'email', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );

  env = await createTestEnv(FAST_ENGINE_CONFIG);
  const org = await seedOrganization(env.deps, 'stores reverify');
  organizationId = org.organization.id;
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const ws = await caller.workspaces.create({ name: 'all stores' });
  const connectors = [
    {
      type: 'MYSQL',
      account: 'DATABASE',
      secrets: db.credentials,
      config: { rules: [{ table: 'users', identifierColumns: ['email'], action: 'delete' }] },
    },
    {
      type: 'REDIS',
      account: 'REDIS',
      secrets: redis.credentials,
      config: { rules: [{ kind: 'keys', pattern: 'user:{{identifier}}:*' }] },
    },
    {
      type: 'S3',
      account: 'AWS',
      secrets: s3.credentials,
      config: { bucket: 'exports', rules: [{ kind: 'prefix', prefix: 'u/{{identifier}}/' }] },
    },
    {
      type: 'DYNAMODB',
      account: 'AWS',
      secrets: dynamo.credentials,
      config: { rules: [{ kind: 'partition', table: 'profiles' }] },
    },
  ] as const;
  for (const store of connectors) {
    const account = await caller.accounts.create({
      name: store.type,
      integrationType: store.type,
      type: store.account,
      secrets: store.secrets,
    });
    await caller.integrations.create({
      workspaceId: ws.id,
      name: store.type,
      type: store.type,
      accountId: account.id,
      config: store.config,
    });
  }
  await writeSubject(BACK, 1);
  await writeSubject(GONE, 2);
  for (const identifier of [BACK, GONE])
    requestIds[identifier] = (await caller.deletionRequests.createInWorkspace({ workspaceId: ws.id, identifier })).id;
  const worker = await startTestWorker(env);
  try {
    for (const id of Object.values(requestIds)) expect((await waitForRequest(env, id)).status).toBe('SUCCESS');
  } finally {
    await worker.stop();
  }
  finishedAt = new Date();
  // A restored backup brings one subject back into every store.
  await writeSubject(BACK, 3);
}, 180_000);

afterAll(async () => {
  s3Client?.destroy();
  dynamoClient?.destroy();
  await closeDrivers();
  await env?.close();
  await db?.close();
  await stores?.stop();
});

/** Each store's re-verification of one request, by integration type. */
async function reverifiedEntries(identifier: string) {
  const deletionRequestId = requestIds[identifier]!;
  const irs = await env.deps.prisma.integrationRequest.findMany({ where: { deletionRequestId } });
  const entries = await env.deps.prisma.auditLog.findMany({
    where: { deletionRequestId, action: 'deletion.reverified' },
  });
  return entries
    .map(({ exchanges, ...e }) => ({ ...e, details: recordedDetails(e.details, exchanges) }))
    .map((e) => {
      const ir = irs.find((i) => i.id === e.integrationRequestId)!;
      return {
        type: ir.integrationType,
        outcome: e.outcome,
        summary: e.summary,
        counts: (e.details as { counts?: Record<string, number> }).counts,
        reappeared: ir.reappearedAt !== null,
        details: JSON.stringify(e.details),
      };
    })
    .sort((a, b) => a.type.localeCompare(b.type));
}

describe('re-verification of the data stores', () => {
  it('finds the data written back in MySQL, Redis, S3 and DynamoDB, and the other subject still gone', async () => {
    await env.deps.prisma.organization.update({ where: { id: organizationId }, data: { reverifyAfterDays: 7 } });
    expect(await runReverification(env.deps, new Date(finishedAt.getTime() + 8 * DAY_MS))).toEqual({
      verified: 4,
      reappeared: 4,
      failed: 0,
    });

    const back = await reverifiedEntries(BACK);
    expect(back.map(({ type, outcome, counts, reappeared }) => ({ type, outcome, counts, reappeared }))).toEqual([
      {
        type: 'DYNAMODB',
        outcome: 'REAPPEARED',
        counts: { 'items of profiles': 1 },
        reappeared: true,
      },
      { type: 'MYSQL', outcome: 'REAPPEARED', counts: { [`delete on ${db.name}.users`]: 1 }, reappeared: true },
      { type: 'REDIS', outcome: 'REAPPEARED', counts: { 'keys user:{{identifier}}:*': 1 }, reappeared: true },
      { type: 'S3', outcome: 'REAPPEARED', counts: { 'objects under u/{{identifier}}/': 1 }, reappeared: true },
    ]);
    expect(back.find((e) => e.type === 'S3')!.summary).toBe(
      'Objects matching the subject came back: objects under u/{{identifier}}/: 1',
    );

    const gone = await reverifiedEntries(GONE);
    expect(gone.map(({ type, outcome, reappeared }) => ({ type, outcome, reappeared }))).toEqual(
      ['DYNAMODB', 'MYSQL', 'REDIS', 'S3'].map((type) => ({ type, outcome: 'VERIFIED', reappeared: false })),
    );
    expect(gone.find((e) => e.type === 'REDIS')!.summary).toBe('Re-verified: no matching keys, fields or members');
    // The reads are in the trail by their shape only.
    for (const entry of [...back, ...gone]) {
      expect(entry.details).not.toContain(BACK);
      expect(entry.details).not.toContain(GONE);
    }
  });

  it('reads and changes nothing else: the data written back is still there for "Delete again"', async () => {
    expect(await db.count(`SELECT COUNT(*) FROM users WHERE email = '${BACK}'`)).toBe(1);
    expect(await redis.client.exists(`user:${BACK}:profile`)).toBe(1);
    // Each integration request is re-verified once.
    expect(await runReverification(env.deps, new Date(finishedAt.getTime() + 9 * DAY_MS))).toEqual({
      verified: 0,
      reappeared: 0,
      failed: 0,
    });
  });
});
