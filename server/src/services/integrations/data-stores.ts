import { dynamoConfigSchema, mysqlConfigSchema, postgresConfigSchema, redisConfigSchema, s3ConfigSchema } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import type { z } from 'zod';
import { AppError } from '../../lib/errors';
import { loadAccountSecrets } from '../../engine/destination';
import { outboundTools, secretValues } from '../../engine/outbound';
import { discoverDynamo, dynamoDryRun } from '../../integrations/dynamodb/execute';
import { discoverMysql, mysqlDryRun, validateMysqlRules } from '../../integrations/mysql/execute';
import { dryRun as postgresDryRun } from '../../integrations/postgres/driver';
import { redisDryRun } from '../../integrations/redis/execute';
import { s3DryRun, s3ListBuckets } from '../../integrations/s3/execute';
import { PermanentError, TransientError, type Exchange } from '../../integrations/types';
import type { Actor } from '../auth/actor';
import type { AccountDeps } from '../accounts/accounts';

/** A rule's effect in a dry run: what it reaches and how many rows, keys, objects or items. */
interface DryRunRule {
  rule: string;
  table: string;
  action: string;
  rows: number;
  sample?: string[];
}

type Tools = { secrets: Record<string, unknown> | null; trail: Exchange[]; resolveHost: (host: string) => Promise<string> };

/** Data stores with an admin dry run: how each parses its configuration and counts what it would erase. */
const DRY_RUNS: Partial<Record<IntegrationType, { schema: z.ZodType; run: (tools: Tools & { config: any; identifier: string }) => Promise<DryRunRule[]> }>> = {
  POSTGRES: { schema: postgresConfigSchema, run: postgresDryRun },
  MYSQL: { schema: mysqlConfigSchema, run: mysqlDryRun },
  REDIS: { schema: redisConfigSchema, run: redisDryRun },
  S3: { schema: s3ConfigSchema, run: s3DryRun },
  DYNAMODB: { schema: dynamoConfigSchema, run: dynamoDryRun },
};

/** The account's type and decrypted secrets, with SSRF-guarded tools; another organization's account is "not found". */
async function openAccount(deps: AccountDeps, actor: Actor, accountId: string) {
  const account = await deps.prisma.account.findFirst({ where: { id: accountId, organizationId: actor.organizationId }, select: { integrationType: true } });
  if (!account) throw new AppError('NOT_FOUND', 'Account not found');
  const secrets = await loadAccountSecrets(deps, actor.organizationId, accountId).catch((error) => {
    throw error instanceof PermanentError ? new AppError('NOT_FOUND', 'Account not found') : error;
  });
  const trail: Exchange[] = [];
  const tools = outboundTools(deps.policy, trail, secretValues(secrets));
  return { integrationType: account.integrationType as IntegrationType, secrets, trail, resolveHost: tools.resolveHost };
}

/** A data store's own error (unreachable, denied, a missing table) is the caller's to fix: a 400 with the reason. */
async function asBadRequest<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PermanentError || error instanceof TransientError) throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
}

/** What each rule would erase for `identifier`, read-only, before the rules are saved (every data store). */
export async function dryRunRules(deps: AccountDeps, actor: Actor, input: { accountId: string; config: unknown; identifier: string }) {
  const account = await openAccount(deps, actor, input.accountId);
  const store = DRY_RUNS[account.integrationType];
  if (!store) throw new AppError('BAD_REQUEST', `${account.integrationType} integrations have no dry run`);
  const parsed = store.schema.safeParse(input.config);
  if (!parsed.success) throw new AppError('BAD_REQUEST', 'Invalid rules', { issues: parsed.error.issues.map((i) => ({ ...i, path: ['config', ...i.path] })) });
  const rules = await asBadRequest(() => store.run({ ...account, config: parsed.data, identifier: input.identifier }));
  return { rules, statements: account.trail.map((t) => (t.kind === 'sql' ? t.statement : '')) };
}

/** Discovery for the stores that have a schema: SQL tables and columns, S3 buckets, DynamoDB tables with keys and indexes. */
export async function discoverStore(deps: AccountDeps, actor: Actor, accountId: string) {
  const account = await openAccount(deps, actor, accountId);
  return asBadRequest(async () => {
    switch (account.integrationType) {
      case 'MYSQL':
        return { kind: 'sql' as const, tables: await discoverMysql(account) };
      case 'S3':
        return { kind: 's3' as const, buckets: await s3ListBuckets(account) };
      case 'DYNAMODB':
        return { kind: 'dynamodb' as const, tables: await discoverDynamo(account) };
      default:
        throw new AppError('BAD_REQUEST', `${account.integrationType} accounts have no schema to discover`);
    }
  });
}

/** Save-time checks of a MySQL configuration against the live schema, as form issues. */
export async function validateMysqlForSave(deps: AccountDeps, actor: Actor, accountId: string, config: unknown) {
  const account = await openAccount(deps, actor, accountId);
  const issues = await asBadRequest(() => validateMysqlRules({ ...account, config: mysqlConfigSchema.parse(config) }));
  if (issues.length > 0) throw new AppError('BAD_REQUEST', issues[0]!.message, { issues: issues.map((i) => ({ ...i, path: ['config', ...i.path] })) });
}
