import {
  BatchWriteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  QueryCommand,
  type AttributeValue,
  type TableDescription,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { DynamoConfig, DynamoRule } from '@shared/integrations/object-stores';
import type { ConfigIssue, DriverContext, Outcome, ReverifyResult } from '../types';
import { PermanentError, TransientError } from '../types';
import { awsClients } from '../stores/aws';
import { MatchBudget } from '../stores/match-budget';
import { recordCall } from '../stores/trail';
import { reverification, verifiedOutcome } from '../stores/verification';

type DynamoContext = Pick<DriverContext<DynamoConfig>, 'resolveHost' | 'secrets' | 'config' | 'trail' | 'identifier'>;
type Key = Record<string, AttributeValue>;

const BATCH = 25; // BatchWriteItem's limit
const UNPROCESSED_ATTEMPTS = 8;

/** SDK clients per account and endpoint. */
const withDynamo = awsClients('DynamoDB', (options) => new DynamoDBClient(options));

/** A table's keys and secondary indexes, as discovery shows them. */
export interface DynamoTableInfo {
  table: string;
  partitionKey: { name: string; type: string };
  sortKey?: { name: string; type: string };
  indexes: {
    name: string;
    kind: 'global' | 'local';
    partitionKey: { name: string; type: string };
    sortKey?: { name: string; type: string };
  }[];
}

function keysOf(description: TableDescription, schema = description.KeySchema ?? []) {
  const typeOf = (name: string) =>
    description.AttributeDefinitions?.find((a) => a.AttributeName === name)?.AttributeType ?? 'S';
  const hash = schema.find((k) => k.KeyType === 'HASH')!.AttributeName!;
  const range = schema.find((k) => k.KeyType === 'RANGE')?.AttributeName;
  return {
    partitionKey: { name: hash, type: typeOf(hash) },
    sortKey: range ? { name: range, type: typeOf(range) } : undefined,
  };
}

function tableInfo(description: TableDescription): DynamoTableInfo {
  return {
    table: description.TableName!,
    ...keysOf(description),
    indexes: [
      ...(description.GlobalSecondaryIndexes ?? []).map((i) => ({
        name: i.IndexName!,
        kind: 'global' as const,
        ...keysOf(description, i.KeySchema),
      })),
      ...(description.LocalSecondaryIndexes ?? []).map((i) => ({
        name: i.IndexName!,
        kind: 'local' as const,
        ...keysOf(description, i.KeySchema),
      })),
    ],
  };
}

async function describe(
  client: DynamoDBClient,
  ctx: Pick<DynamoContext, 'trail'>,
  table: string,
): Promise<DynamoTableInfo> {
  const result = await recordCall(
    ctx.trail,
    `DescribeTable ${table}`,
    () => client.send(new DescribeTableCommand({ TableName: table })),
    () => 1,
  );
  return tableInfo(result.Table!);
}

/** Schema discovery: every table with its key schema and secondary indexes. */
export async function discoverDynamo(ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>): Promise<DynamoTableInfo[]> {
  return withDynamo(ctx, async (client) => {
    const names: string[] = [];
    let ExclusiveStartTableName: string | undefined;
    do {
      const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName }));
      names.push(...(page.TableNames ?? []));
      ExclusiveStartTableName = page.LastEvaluatedTableName;
    } while (ExclusiveStartTableName);
    const trail: DynamoContext['trail'] = [];
    return Promise.all(names.map((name) => describe(client, { trail }, name)));
  });
}

/** The identifier as a key value of this type; null when it cannot be one (a number key and a non-numeric identifier). */
function keyValue(type: string, identifier: string): AttributeValue | null {
  // A number written one way only: DynamoDB compares numbers by value, so '007' or '7e0' would be item 7.
  if (type === 'N') return /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/.test(identifier) ? { N: identifier } : null;
  if (type === 'S') return { S: identifier };
  return null;
}

const ruleLabel = (rule: DynamoRule) =>
  rule.kind === 'partition' ? `items of ${rule.table}` : `items of ${rule.table} by index ${rule.index}`;

/**
 * The table keys of the items a rule reaches, by Query (never Scan), page after page. Reads on
 * the table are strongly consistent; global secondary indexes only offer eventual consistency.
 */
async function itemKeys(
  client: DynamoDBClient,
  ctx: DynamoContext,
  rule: DynamoRule,
  budget: MatchBudget,
): Promise<Key[]> {
  const info = await describe(client, ctx, rule.table);
  const index = rule.kind === 'index' ? info.indexes.find((i) => i.name === rule.index) : undefined;
  if (rule.kind === 'index' && !index) throw new PermanentError(`Table ${rule.table} has no index ${rule.index}`);
  const partition = index ? index.partitionKey : info.partitionKey;
  // A binary key never holds a text identifier: a rule on one would always find nothing.
  if (partition.type === 'B')
    throw new PermanentError(
      `${ruleLabel(rule)}: its partition key ${partition.name} is binary, which an identifier cannot be`,
    );
  const value = keyValue(partition.type, ctx.identifier);
  if (!value) return [];
  const tableKeys = [info.partitionKey.name, ...(info.sortKey ? [info.sortKey.name] : [])];
  const names = Object.fromEntries([partition.name, ...tableKeys].map((n, i) => [`#k${i}`, n]));
  const keys = new Map<string, Key>();
  await recordCall(
    ctx.trail,
    `Query ${rule.table}${index ? ` INDEX ${index.name}` : ''} WHERE ${partition.name} = :identifier`,
    async () => {
      let ExclusiveStartKey: Key | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: rule.table,
            IndexName: index?.name,
            KeyConditionExpression: '#k0 = :identifier',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':identifier': value },
            ProjectionExpression: tableKeys.map((_, i) => `#k${i + 1}`).join(', '),
            ConsistentRead: index?.kind === 'global' ? undefined : true,
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const key = Object.fromEntries(tableKeys.map((k) => [k, item[k]!]));
          keys.set(JSON.stringify(key), key);
        }
        budget.check(keys.size, ruleLabel(rule));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    },
    () => keys.size,
  );
  return [...keys.values()];
}

async function pending(client: DynamoDBClient, ctx: DynamoContext) {
  const results = [];
  const budget = new MatchBudget(ctx.config.maxItems, 'items');
  for (const rule of ctx.config.rules) {
    const keys = await itemKeys(client, ctx, rule, budget);
    budget.take(keys.length);
    results.push({ rule, keys });
  }
  return results;
}

/** BatchWriteItem, 25 deletes at a time; unprocessed items (throttling) are sent again with backoff. */
async function deleteKeys(client: DynamoDBClient, ctx: DynamoContext, rule: DynamoRule, keys: Key[]): Promise<number> {
  for (let i = 0; i < keys.length; i += BATCH) {
    let requests: WriteRequest[] = keys.slice(i, i + BATCH).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt >= UNPROCESSED_ATTEMPTS)
        throw new TransientError(`DynamoDB left ${requests.length} deletion(s) unprocessed for ${ruleLabel(rule)}`);
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 2_000)));
      const sent = requests;
      const result = await recordCall(
        ctx.trail,
        `BatchWriteItem ${rule.table} (${sent.length} deletes${attempt > 0 ? `, retry ${attempt}` : ''})`,
        () => client.send(new BatchWriteItemCommand({ RequestItems: { [rule.table]: sent } })),
        (r) => sent.length - (r.UnprocessedItems?.[rule.table]?.length ?? 0),
      );
      requests = result.UnprocessedItems?.[rule.table] ?? [];
    }
  }
  return keys.length;
}

/** The dry run: the items each rule would delete, counted. */
export async function dynamoDryRun(ctx: DynamoContext) {
  return withDynamo(ctx, async (client) =>
    (await pending(client, ctx)).map(({ rule, keys }) => ({
      rule: ruleLabel(rule),
      table: rule.table,
      action: 'delete',
      rows: keys.length,
    })),
  );
}

/** Items per rule the rules still reach: the proof of a deletion (querying again). */
async function remainingItems(client: DynamoDBClient, ctx: DynamoContext): Promise<Record<string, number>> {
  const remaining: Record<string, number> = {};
  for (const { rule, keys } of await pending(client, ctx))
    remaining[ruleLabel(rule)] = (remaining[ruleLabel(rule)] ?? 0) + keys.length;
  return remaining;
}

/** The deletion's proof again, read-only, some time after SUCCESS (re-verification). */
export async function dynamoReverify(ctx: DynamoContext): Promise<ReverifyResult> {
  return withDynamo(ctx, async (client) => reverification(await remainingItems(client, ctx), 'items'));
}

/** Deletes every item the rules reach, then queries again as the proof that none is left. */
export async function dynamoDeleteAndVerify(ctx: DynamoContext): Promise<Outcome> {
  return withDynamo(ctx, async (client) => {
    const changed: Record<string, number> = {};
    for (const { rule, keys } of await pending(client, ctx))
      changed[ruleLabel(rule)] = (changed[ruleLabel(rule)] ?? 0) + (await deleteKeys(client, ctx, rule, keys));
    const remaining = await remainingItems(client, ctx);
    return verifiedOutcome(changed, remaining, {
      stillThere: 'items still present',
      done: (total) => `${total} item(s) deleted; verified that none is left`,
    });
  });
}

/** Save-time check of each rule against the live tables: the table exists, the index is one of its secondary indexes. */
export async function validateDynamoConfig(
  ctx: Pick<DriverContext<DynamoConfig>, 'resolveHost' | 'secrets' | 'config' | 'trail'>,
): Promise<ConfigIssue[]> {
  return withDynamo(ctx, async (client) => {
    const issues: ConfigIssue[] = [];
    for (const [i, rule] of ctx.config.rules.entries()) {
      let info: DynamoTableInfo;
      try {
        info = await describe(client, ctx, rule.table);
      } catch (error) {
        if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
        issues.push({
          path: ['rules', i, 'table'],
          message: `Table ${rule.table} does not exist or is not visible to these credentials`,
        });
        continue;
      }
      const index = rule.kind === 'index' ? info.indexes.find((x) => x.name === rule.index) : undefined;
      if (rule.kind === 'index' && !index) {
        const known = info.indexes.map((x) => x.name).join(', ') || 'none';
        issues.push({
          path: ['rules', i, 'index'],
          message: `Table ${rule.table} has no index ${rule.index} (its secondary indexes: ${known})`,
        });
        continue;
      }
      const partition = index ? index.partitionKey : info.partitionKey;
      if (partition.type === 'B')
        issues.push({
          path: ['rules', i, rule.kind === 'index' ? 'index' : 'table'],
          message: `The partition key ${partition.name} is binary: an identifier cannot match it`,
        });
    }
    return issues;
  });
}

export async function dynamoTestConnection(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
): Promise<{ ok: boolean; message: string }> {
  try {
    const tables = await withDynamo(
      ctx,
      async (client) => (await client.send(new ListTablesCommand({ Limit: 100 }))).TableNames ?? [],
    );
    return { ok: true, message: `Connected: ${tables.length} table(s) visible` };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

export const closeDynamoClients = () => withDynamo.closeAll();
