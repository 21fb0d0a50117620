import type { SnowflakeConfig } from '@shared/integrations';
import type { AdminContext, ConfigIssue, DriverContext, Outcome, ReverifyResult } from '../types';
import {
  actionStatement,
  pendingCountsStatement,
  pendingCountStatement,
  ruleLabel,
  validateRules,
  type DiscoveredTable,
} from '../sql/rules';
import { resolveRules } from '../sql/foreign-keys';
import { reverification, verifiedOutcome } from '../stores/verification';
import { snowflakeClient, type SnowflakeContext } from './client';
import { snowflakeDialect } from './dialect';
import { discoverSnowflakeSchema, timeTravelNotice, type SnowflakeSchema } from './schema';

type Context = SnowflakeContext & { config: SnowflakeConfig; identifier: string };
type DeletionContext = Context & Pick<DriverContext, 'hashKey'>;

/** Rules with their table's columns, in the order they run (key chains first). */
const resolvedRules = (config: SnowflakeConfig, tables: DiscoveredTable[]) =>
  resolveRules(config.rules, tables, 'this role');

/** The schemas the rules name: what a dry run, a deletion or its proof reads of the database. */
const ruleSchemas = (config: SnowflakeConfig) => [
  ...new Set(config.rules.flatMap((r) => [r.schema, ...(r.via ?? []).map((s) => s.references.schema)])),
];

const count = (value: string | null | undefined) => Number(value ?? 0);

/** Tables and columns of the account's database, for the rule builder. */
export async function discoverSnowflake(ctx: Omit<AdminContext, 'config'>): Promise<DiscoveredTable[]> {
  const client = snowflakeClient(ctx);
  return (await discoverSnowflakeSchema(client, 30_000)).tables;
}

/** Save-time check of the rules against the live schema, as issues for the form. */
export async function validateSnowflakeRules(ctx: AdminContext<SnowflakeConfig>): Promise<ConfigIssue[]> {
  const client = snowflakeClient(ctx);
  const { tables } = await discoverSnowflakeSchema(client, ctx.config.statementTimeoutMs);
  return validateRules(snowflakeDialect, ctx.config.rules, tables, ctx.config.keep ?? []);
}

/** Rows each rule would change for this identifier, counted with SELECTs only: the dry run. */
export async function snowflakeDryRun(ctx: Context) {
  const client = snowflakeClient(ctx, ctx.identifier);
  const timeout = ctx.config.statementTimeoutMs;
  const { tables } = await discoverSnowflakeSchema(client, timeout, ruleSchemas(ctx.config));
  const results = [];
  for (const { rule, columns } of resolvedRules(ctx.config, tables)) {
    const statement = pendingCountStatement(snowflakeDialect, rule, columns, ctx.identifier);
    const rows = statement ? count((await client.execute(statement, timeout)).rows[0]?.[0]) : 0;
    results.push({ rule: ruleLabel(rule), table: `${rule.schema}.${rule.table}`, action: rule.action, rows });
  }
  return results;
}

/** Rows per rule that still match the identifier outside their target state (one statement). */
async function remainingRows(
  client: ReturnType<typeof snowflakeClient>,
  ctx: Context,
  rules: ReturnType<typeof resolvedRules>,
): Promise<Record<string, number>> {
  const statement = pendingCountsStatement(snowflakeDialect, rules, ctx.identifier);
  const row = (await client.execute(statement, ctx.config.statementTimeoutMs)).rows[0] ?? [];
  const remaining: Record<string, number> = {};
  rules.forEach(({ rule }, i) => {
    remaining[ruleLabel(rule)] = (remaining[ruleLabel(rule)] ?? 0) + count(row[i]);
  });
  return remaining;
}

/**
 * The rules one statement each (Snowflake commits each on its own; every statement changes only
 * rows not yet in their target state, so a step that failed half-way is simply run again), then
 * the proof that no matching row is left outside its target state, and what Time Travel and
 * Fail-safe still keep of the changed tables.
 */
export async function snowflakeDeleteAndVerify(ctx: DeletionContext): Promise<Outcome> {
  const client = snowflakeClient(ctx, ctx.identifier);
  const timeout = ctx.config.statementTimeoutMs;
  const schema: SnowflakeSchema = await discoverSnowflakeSchema(client, timeout, ruleSchemas(ctx.config));
  const rules = resolvedRules(ctx.config, schema.tables);
  const changed: Record<string, number> = {};
  for (const { rule, columns } of rules) {
    const statement = actionStatement(snowflakeDialect, rule, columns, ctx.identifier, ctx.hashKey);
    const result = statement ? await client.execute(statement, timeout) : null;
    const rows = result ? (result.changed ?? count(result.rows[0]?.[0])) : 0;
    changed[ruleLabel(rule)] = (changed[ruleLabel(rule)] ?? 0) + rows;
  }
  const remaining = await remainingRows(client, ctx, rules);
  const timeTravel = timeTravelNotice(
    schema,
    rules.map(({ rule }) => rule),
  );
  const outcome = verifiedOutcome(changed, remaining, {
    stillThere: 'rows still matching',
    done: (total) => `${total} row(s) changed; verified that no matching rows remain. ${timeTravel.notice}`,
  });
  return outcome.kind === 'success' ? { ...outcome, evidence: { ...outcome.evidence, timeTravel } } : outcome;
}

/** The deletion's proof again, alone and read-only, some time after SUCCESS (re-verification). */
export async function snowflakeReverify(ctx: Context): Promise<ReverifyResult> {
  const client = snowflakeClient(ctx, ctx.identifier);
  const { tables } = await discoverSnowflakeSchema(client, ctx.config.statementTimeoutMs, ruleSchemas(ctx.config));
  return reverification(await remainingRows(client, ctx, resolvedRules(ctx.config, tables)), 'rows');
}

export async function snowflakeTestConnection(ctx: AdminContext<SnowflakeConfig>) {
  try {
    const client = snowflakeClient(ctx);
    const result = await client.execute(
      { text: 'SELECT CURRENT_VERSION(), CURRENT_DATABASE(), CURRENT_WAREHOUSE()', values: [] },
      10_000,
    );
    const [version, database, warehouse] = result.rows[0] ?? [];
    return { ok: true, message: `Connected: Snowflake ${version}, database ${database}, warehouse ${warehouse}` };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
