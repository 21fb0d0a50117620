import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoConfigSchema } from '@shared/integrations/object-stores';
import { assertHostAllowed, policyFromConfig } from '../../lib/ssrf';
import { startDynalite, tableWithEmailIndex } from '../../test/stores/dynalite';
import { PermanentError, TransientError, type Exchange } from '../types';
import {
  closeDynamoClients,
  discoverDynamo,
  dynamoDeleteAndVerify,
  dynamoDryRun,
  dynamoTestConnection,
  validateDynamoConfig,
} from './execute';

let dynamo: Awaited<ReturnType<typeof startDynalite>>;
let client: DynamoDBClient;
const policy = policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' });
const resolveHost = async (host: string) => (await assertHostAllowed(host, policy)).address;

beforeAll(async () => {
  dynamo = await startDynalite();
  client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: dynamo.credentials });
  await client.send(
    new CreateTableCommand({
      TableName: 'events',
      KeySchema: [
        { AttributeName: 'userId', KeyType: 'HASH' },
        { AttributeName: 'at', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'userId', AttributeType: 'S' },
        { AttributeName: 'at', AttributeType: 'N' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await client.send(tableWithEmailIndex('orders', 'orderId'));
  await client.send(
    new CreateTableCommand({
      TableName: 'accounts',
      KeySchema: [{ AttributeName: 'accountNo', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'accountNo', AttributeType: 'N' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});
afterAll(async () => {
  client?.destroy();
  await closeDynamoClients();
  await dynamo?.stop();
});

const ctxFor = (rules: unknown[], identifier: string, extra: object = {}) => ({
  secrets: dynamo.credentials as Record<string, unknown>,
  resolveHost,
  config: dynamoConfigSchema.parse({ rules, ...extra }),
  identifier,
  trail: [] as Exchange[],
});
const count = async (table: string) =>
  (await client.send(new ScanCommand({ TableName: table, Select: 'COUNT' }))).Count;

describe('DynamoDB through the official AWS SDK v3 against dynalite', () => {
  it('discovers tables with their keys and indexes, through the SSRF guard', async () => {
    const tables = await discoverDynamo({ secrets: dynamo.credentials, resolveHost });
    expect(tables.find((t) => t.table === 'orders')).toEqual({
      table: 'orders',
      partitionKey: { name: 'orderId', type: 'S' },
      sortKey: undefined,
      indexes: [{ name: 'by-email', kind: 'global', partitionKey: { name: 'email', type: 'S' }, sortKey: undefined }],
    });
    expect(tables.find((t) => t.table === 'events')?.sortKey).toEqual({ name: 'at', type: 'N' });
    const strict = policyFromConfig({});
    expect(
      await dynamoTestConnection({
        secrets: dynamo.credentials,
        resolveHost: async (h) => (await assertHostAllowed(h, strict)).address,
      }),
    ).toMatchObject({
      ok: false,
      message: expect.stringContaining('loopback'),
    });
  });

  it('deletes by partition key and through an index, over many pages, exactly the subject and verifies', async () => {
    const id = 'jane@example.com';
    const big = 'x'.repeat(20_000); // 20 KB items: a 1 MB query page holds ~50, so the 120 items take several pages
    for (let i = 0; i < 120; i++)
      await client.send(
        new PutItemCommand({
          TableName: 'events',
          Item: { userId: { S: id }, at: { N: String(i) }, payload: { S: big } },
        }),
      );
    for (const other of ['Jane@example.com', 'jane@example.com ', 'other@example.com'])
      await client.send(new PutItemCommand({ TableName: 'events', Item: { userId: { S: other }, at: { N: '1' } } }));
    for (let i = 0; i < 30; i++)
      await client.send(
        new PutItemCommand({
          TableName: 'orders',
          Item: { orderId: { S: `o-${i}` }, email: { S: i < 27 ? id : 'other@example.com' } },
        }),
      );
    const rules = [
      { kind: 'partition', table: 'events' },
      { kind: 'index', table: 'orders', index: 'by-email' },
    ];
    expect((await dynamoDryRun(ctxFor(rules, id))).map((r) => r.rows)).toEqual([120, 27]);
    const ctx = ctxFor(rules, id);
    const outcome = await dynamoDeleteAndVerify(ctx);
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: { changed: { 'items of events': 120, 'items of orders by index by-email': 27 } },
    });
    expect(await count('events')).toBe(3);
    expect(await count('orders')).toBe(3);
    // 120 deletes in batches of 25; no Scan, and the identifier never in the trail.
    expect(ctx.trail.filter((s) => s.kind === 'sql' && s.statement.startsWith('BatchWriteItem events'))).toHaveLength(
      5,
    );
    expect(ctx.trail.some((s) => s.kind === 'sql' && s.statement.startsWith('Scan'))).toBe(false);
    expect(JSON.stringify(ctx.trail)).not.toContain('jane@');
  });

  it('sends unprocessed items again until DynamoDB has taken them all', async () => {
    for (let i = 0; i < 5; i++)
      await client.send(
        new PutItemCommand({ TableName: 'events', Item: { userId: { S: 'slow@example.com' }, at: { N: String(i) } } }),
      );
    dynamo.throttle(3);
    const ctx = ctxFor([{ kind: 'partition', table: 'events' }], 'slow@example.com');
    expect(await dynamoDeleteAndVerify(ctx)).toMatchObject({
      kind: 'success',
      evidence: { changed: { 'items of events': 5 } },
    });
    const batches = ctx.trail.filter((s) => s.kind === 'sql' && s.statement.startsWith('BatchWriteItem'));
    expect(batches.map((s) => (s.kind === 'sql' ? s.rowCount : 0))).toEqual([1, 1, 1, 2]);
    expect(
      await client.send(
        new GetItemCommand({ TableName: 'events', Key: { userId: { S: 'slow@example.com' }, at: { N: '4' } } }),
      ),
    ).not.toHaveProperty('Item');
  });

  it('refuses a rule on a binary partition key, which no identifier can match, at save time and at run time', async () => {
    await client.send(
      new CreateTableCommand({
        TableName: 'blobs',
        KeySchema: [{ AttributeName: 'digest', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'digest', AttributeType: 'B' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const rules = [{ kind: 'partition', table: 'blobs' }];
    expect(await validateDynamoConfig(ctxFor(rules, ''))).toEqual([
      { path: ['rules', 0, 'table'], message: 'The partition key digest is binary: an identifier cannot match it' },
    ]);
    await expect(dynamoDeleteAndVerify(ctxFor(rules, 'a@b.c'))).rejects.toBeInstanceOf(PermanentError);
  });

  it('a number partition key only matches a numeric identifier', async () => {
    await client.send(new PutItemCommand({ TableName: 'accounts', Item: { accountNo: { N: '42' } } }));
    expect((await dynamoDryRun(ctxFor([{ kind: 'partition', table: 'accounts' }], 'a@b.c')))[0]!.rows).toBe(0);
    // DynamoDB compares numbers by value: '042' or '4.2e1' written another way would reach item 42.
    for (const other of ['042', '4.2e1', '42.0'])
      expect((await dynamoDryRun(ctxFor([{ kind: 'partition', table: 'accounts' }], other)))[0]!.rows).toBe(0);
    expect(await dynamoDeleteAndVerify(ctxFor([{ kind: 'partition', table: 'accounts' }], '42'))).toMatchObject({
      kind: 'success',
      evidence: { changed: { 'items of accounts': 1 } },
    });
  });

  it('above the limit the request fails clearly, and nothing is deleted', async () => {
    for (let i = 0; i < 12; i++)
      await client.send(
        new PutItemCommand({ TableName: 'events', Item: { userId: { S: 'many@example.com' }, at: { N: String(i) } } }),
      );
    const error = await dynamoDeleteAndVerify(
      ctxFor([{ kind: 'partition', table: 'events' }], 'many@example.com', { maxItems: 10 }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toBe(
      'More than 10 items match items of events: raise the limit if that is expected',
    );
    expect(
      (await dynamoDryRun(ctxFor([{ kind: 'partition', table: 'events' }], 'many@example.com', { maxItems: 100 })))[0]!
        .rows,
    ).toBe(12);
  });

  it('a later rule going over what is left of maxItems fails the request, naming the configured limit', async () => {
    for (let i = 0; i < 4; i++)
      await client.send(
        new PutItemCommand({ TableName: 'events', Item: { userId: { S: 'later@example.com' }, at: { N: String(i) } } }),
      );
    const rules = [
      { kind: 'partition', table: 'events' },
      { kind: 'partition', table: 'events' },
    ];
    const error = await dynamoDeleteAndVerify(ctxFor(rules, 'later@example.com', { maxItems: 6 })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toBe(
      "More than 6 items match this request's rules (4 before items of events): raise the limit if that is expected",
    );
    expect((await dynamoDryRun(ctxFor([rules[0]], 'later@example.com', { maxItems: 6 })))[0]!.rows).toBe(4);
  });

  it('verification catches an item written again after the deletion', async () => {
    let stop = false;
    const writer = (async () => {
      while (!stop)
        await client
          .send(
            new PutItemCommand({ TableName: 'events', Item: { userId: { S: 'back@example.com' }, at: { N: '1' } } }),
          )
          .catch(() => {});
    })();
    try {
      let outcome;
      for (let i = 0; i < 50 && outcome?.kind !== 'retry'; i++)
        outcome = await dynamoDeleteAndVerify(ctxFor([{ kind: 'partition', table: 'events' }], 'back@example.com'));
      expect(outcome).toMatchObject({
        kind: 'retry',
        reason: 'Verification found items still present: items of events: 1',
      });
    } finally {
      stop = true;
      await writer;
    }
  });

  it('a missing table or index is permanent; an unreachable endpoint is transient', async () => {
    await expect(dynamoDeleteAndVerify(ctxFor([{ kind: 'partition', table: 'nope' }], 'x'))).rejects.toBeInstanceOf(
      PermanentError,
    );
    await expect(
      dynamoDeleteAndVerify(ctxFor([{ kind: 'index', table: 'orders', index: 'by-phone' }], 'x')),
    ).rejects.toThrow('Table orders has no index by-phone');
    const down = {
      ...ctxFor([{ kind: 'partition', table: 'events' }], 'x'),
      secrets: { ...dynamo.credentials, endpoint: 'http://127.0.0.1:1' },
    };
    await expect(dynamoDeleteAndVerify(down)).rejects.toBeInstanceOf(TransientError);
  });
});
