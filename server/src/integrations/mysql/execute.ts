import type mysql from 'mysql2/promise';
import type { MysqlConfig, PostgresRule } from '@shared/integrations/postgres';
import type { DriverContext, Exchange, Outcome, ReverifyResult } from '../types';
import type { Statement } from '../sql/dialect';
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
import { identifierRedactor } from '../runtime/redaction';
import { mysqlDialect } from './dialect';
import { classifyMysqlError } from './errors';
import { discoverMysqlSchema } from './schema';
import { withMysqlConnection } from './sessions';

type MysqlContext = Pick<DriverContext<MysqlConfig>, 'resolveHost' | 'secrets' | 'config' | 'trail' | 'identifier'>;
type MysqlDeletionContext = MysqlContext & Pick<DriverContext<MysqlConfig>, 'hashKey'>;

async function run(
  connection: mysql.PoolConnection,
  trail: Exchange[],
  statement: Statement,
  identifier: string,
): Promise<unknown> {
  const started = Date.now();
  const step: Extract<Exchange, { kind: 'sql' }> = { kind: 'sql', statement: statement.text, durationMs: 0 };
  trail.push(step);
  try {
    const [result] = await connection.query(statement.text, statement.values);
    step.rowCount = Array.isArray(result) ? result.length : (result as mysql.ResultSetHeader).affectedRows;
    return result;
  } catch (error) {
    const classified = classifyMysqlError(error);
    classified.message = identifierRedactor(identifier)(classified.message);
    step.error = classified.message;
    throw classified;
  } finally {
    step.durationMs = Date.now() - started;
  }
}

/** A rule with an empty `schema` (in its key chain too) given the account's own database. */
const inDatabase = (rule: PostgresRule, database: string): PostgresRule => ({
  ...rule,
  schema: rule.schema || database,
  ...(rule.via
    ? {
        via: rule.via.map((step) => ({
          ...step,
          references: { ...step.references, schema: step.references.schema || database },
        })),
      }
    : {}),
});

/** Rules with their table's columns, in the order they run (children first); an empty `schema` means the account's own database. */
function resolvedRules(config: MysqlConfig, tables: DiscoveredTable[], database: string) {
  const rules = config.rules.map((given) => inDatabase(given, database));
  return resolveRules(rules, tables, 'this user');
}
const databaseOf = (ctx: Pick<DriverContext, 'secrets'>) =>
  String((ctx.secrets as { database?: string } | null)?.database ?? '');

/** The tables of the databases the rules name: what a dry run, a deletion or its proof needs. */
const rulesSchema = (connection: mysql.PoolConnection, ctx: MysqlContext) => {
  const named = ctx.config.rules.flatMap((r) => [r.schema, ...(r.via ?? []).map((s) => s.references.schema)]);
  return discoverMysqlSchema(connection, [...new Set(named.map((s) => s || databaseOf(ctx)))]).catch((e) =>
    Promise.reject(classifyMysqlError(e)),
  );
};

/** Tables, columns and foreign keys of the account's database. */
export async function discoverMysql(ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>): Promise<DiscoveredTable[]> {
  return withMysqlConnection(ctx, 10_000, (connection) =>
    discoverMysqlSchema(connection).catch((e) => Promise.reject(classifyMysqlError(e))),
  );
}

/** Save-time check of the rules against the live schema, as issues for the form. */
export async function validateMysqlRules(ctx: Pick<DriverContext<MysqlConfig>, 'resolveHost' | 'secrets' | 'config'>) {
  const tables = await discoverMysql(ctx);
  const database = databaseOf(ctx);
  return validateRules(
    mysqlDialect,
    ctx.config.rules.map((r) => inDatabase(r, database)),
    tables,
    (ctx.config.keep ?? []).map((k) => ({ ...k, schema: k.schema || database })),
  );
}

/** Rows each rule would change for this identifier, read-only (a transaction that is rolled back): the dry run. */
export async function mysqlDryRun(ctx: MysqlContext) {
  return withMysqlConnection(ctx, ctx.config.statementTimeoutMs, async (connection) => {
    await connection.query('START TRANSACTION READ ONLY');
    try {
      const rules = resolvedRules(ctx.config, await rulesSchema(connection, ctx), databaseOf(ctx));
      const results = [];
      for (const { rule, columns } of rules) {
        const statement = pendingCountStatement(mysqlDialect, rule, columns, ctx.identifier);
        const rows = statement
          ? ((await run(connection, ctx.trail, statement, ctx.identifier)) as mysql.RowDataPacket[])[0]!.n
          : 0;
        results.push({
          rule: ruleLabel(rule),
          table: `${rule.schema}.${rule.table}`,
          action: rule.action,
          rows: Number(rows),
        });
      }
      return results;
    } finally {
      await connection.query('ROLLBACK').catch(() => {});
    }
  });
}

/** Rows per rule that still match the identifier outside their target state (one statement). */
async function remainingRows(
  connection: mysql.PoolConnection,
  ctx: MysqlContext,
  rules: ReturnType<typeof resolvedRules>,
): Promise<Record<string, number>> {
  const counts = (
    (await run(
      connection,
      ctx.trail,
      pendingCountsStatement(mysqlDialect, rules, ctx.identifier),
      ctx.identifier,
    )) as mysql.RowDataPacket[]
  )[0]!;
  const remaining: Record<string, number> = {};
  rules.forEach(({ rule }, i) => {
    remaining[ruleLabel(rule)] = (remaining[ruleLabel(rule)] ?? 0) + Number(counts[`r${i}`]);
  });
  return remaining;
}

/**
 * The rules in one transaction, children before parents (InnoDB checks foreign keys row by
 * row, so `users` before `orders` would fail), then, after the commit, the proof that no
 * matching row is left outside its target state. Any failing rule rolls every rule back.
 */
export async function mysqlDeleteAndVerify(ctx: MysqlDeletionContext): Promise<Outcome> {
  return withMysqlConnection(ctx, ctx.config.statementTimeoutMs, async (connection) => {
    const tables = await rulesSchema(connection, ctx);
    const rules = resolvedRules(ctx.config, tables, databaseOf(ctx));
    const changed: Record<string, number> = {};
    await connection.query('START TRANSACTION');
    try {
      for (const { rule, columns } of rules) {
        const statement = actionStatement(mysqlDialect, rule, columns, ctx.identifier, ctx.hashKey);
        const result = statement
          ? ((await run(connection, ctx.trail, statement, ctx.identifier)) as mysql.ResultSetHeader)
          : null;
        changed[ruleLabel(rule)] = (changed[ruleLabel(rule)] ?? 0) + (result?.affectedRows ?? 0);
      }
      await connection.query('COMMIT');
    } catch (error) {
      await connection.query('ROLLBACK').catch(() => {});
      throw error;
    }
    // The proof, after the commit: no matching row left outside its target state.
    const remaining = await remainingRows(connection, ctx, rules);
    return verifiedOutcome(changed, remaining, {
      stillThere: 'rows still matching',
      done: (total) => `${total} row(s) changed; verified that no matching rows remain`,
    });
  });
}

/** The deletion's proof again, alone and read-only, some time after SUCCESS (re-verification). */
export async function mysqlReverify(ctx: MysqlContext): Promise<ReverifyResult> {
  return withMysqlConnection(ctx, ctx.config.statementTimeoutMs, async (connection) => {
    const tables = await rulesSchema(connection, ctx);
    return reverification(
      await remainingRows(connection, ctx, resolvedRules(ctx.config, tables, databaseOf(ctx))),
      'rows',
    );
  });
}

export async function mysqlTestConnection(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
): Promise<{ ok: boolean; message: string }> {
  try {
    return await withMysqlConnection(ctx, 5_000, async (connection) => {
      const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
      return { ok: true, message: `Connected: ${String(rows[0]?.v).split('-').slice(0, 2).join(' ')}` };
    });
  } catch (error) {
    return { ok: false, message: classifyMysqlError(error).message };
  }
}
