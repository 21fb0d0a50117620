import pg from 'pg';
import type { AccountSecretsByType } from '@shared/integrations/accounts';
import type { PostgresConfig } from '@shared/integrations/postgres';
import type { AdminContext, Driver, DriverContext, DryRunResult, Exchange, Outcome, DiscoveredTable } from '../types';
import { PermanentError, TransientError } from '../types';
import { discoverSchema, validateRules } from './schema';
import {
  actionStatement,
  combinedActionStatement,
  pendingCountsStatement,
  pendingCountStatement,
  rulesOnDistinctTables,
  type Statement,
} from './sql';
import { closeSessions, connectionConfig, withSession } from './sessions';
import { resolveRules } from '../sql/foreign-keys';
import { ruleLabel } from '../sql/rules';
import { reverification, verifiedOutcome } from '../stores/verification';
import { identifierRedactor } from '../runtime/redaction';
import { inMaintenanceWindow } from '../stores/trail';

type DatabaseSecrets = AccountSecretsByType['DATABASE'];

// SQLSTATE classes that a later attempt may not hit: timeouts, lock conflicts, shutdowns.
const TRANSIENT_SQLSTATES = new Set([
  '57014',
  '40001',
  '40P01',
  '55P03',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
]);

/** A database error with its SQLSTATE kept, for the few the driver handles itself. */
const withSqlState = <E extends Error>(error: E, sqlState: string): E & { sqlState: string } =>
  Object.assign(error, { sqlState });

/** SQLSTATE class 22, data exceptions: PostgreSQL's message quotes the value (the identifier) that did not fit a column. */
const DATA_EXCEPTION = /^22/;

/**
 * The error a step reports, in words fit for the audit trail and the request's status: with
 * `identifier`, never the identifier (a data exception becomes a fixed sentence, and any other
 * message has it blanked out). PostgreSQL's `detail`, which quotes row values, is never used.
 */
export function classifyDatabaseError(error: unknown, identifier?: string): TransientError | PermanentError {
  if (error instanceof TransientError || error instanceof PermanentError) return error;
  const e = error as { code?: string; message?: string };
  let message = e.message ?? String(error);
  if (identifier !== undefined && e.code && DATA_EXCEPTION.test(e.code))
    message = "a value of the identifier's kind does not fit a matched column's type";
  else if (identifier) message = identifierRedactor(identifier)(message);
  if (e.code && TRANSIENT_SQLSTATES.has(e.code))
    return withSqlState(new TransientError(`Database: ${message} (${e.code})`), e.code);
  if (e.code && /^[0-9A-Z]{5}$/.test(e.code))
    return withSqlState(new PermanentError(`Database: ${message} (${e.code})`), e.code);
  // Connection refused, reset, DNS, TLS handshake: the database may be back later.
  return new TransientError(`Database connection: ${message}`);
}

/** Connects to the customer's database through the SSRF-checked address. */
export async function connect(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
  options: { statementTimeoutMs?: number } = {},
): Promise<pg.Client> {
  const secrets = ctx.secrets as DatabaseSecrets | null;
  if (!secrets?.host) throw new PermanentError('This integration needs a database account');
  const address = await ctx.resolveHost(secrets.host);
  const client = new pg.Client(connectionConfig(secrets, address, options.statementTimeoutMs ?? 30_000));
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw classifyDatabaseError(error);
  }
  return client;
}

async function run(
  client: pg.ClientBase,
  trail: Exchange[],
  statement: Statement,
  identifier: string,
): Promise<pg.QueryResult> {
  const started = Date.now();
  const step: Extract<Exchange, { kind: 'sql' }> = { kind: 'sql', statement: statement.text, durationMs: 0 };
  trail.push(step);
  try {
    const result = await client.query(statement.text, statement.values);
    step.rowCount = result.rowCount ?? 0;
    return result;
  } catch (error) {
    const classified = classifyDatabaseError(error, identifier);
    step.error = classified.message;
    throw classified;
  } finally {
    step.durationMs = Date.now() - started;
  }
}

/** The rules with their tables' columns, in the order they run: tables that reference others first. */
const resolvedRules = (config: PostgresConfig, tables: DiscoveredTable[]) =>
  resolveRules(config.rules, tables, 'this user');

/** How many rows each rule would change for `identifier`, read-only (a transaction that is rolled back), in the order they run. */
async function dryRun(ctx: AdminContext<PostgresConfig> & { identifier: string }): Promise<DryRunResult> {
  const client = await connect(ctx, { statementTimeoutMs: ctx.config.statementTimeoutMs });
  try {
    await client.query('BEGIN READ ONLY');
    const rules = resolvedRules(ctx.config, await discoverSchema(client));
    const results = [];
    for (const { rule, columns } of rules) {
      const statement = pendingCountStatement(rule, columns, ctx.identifier);
      const rows = statement ? (await run(client, ctx.trail, statement, ctx.identifier)).rows[0].n : 0;
      results.push({
        rule: ruleLabel(rule),
        table: `${rule.schema}.${rule.table}`,
        action: rule.action,
        rows: Number(rows),
      });
    }
    return { rules: results, statements: ctx.trail.map((t) => (t.kind === 'sql' ? t.statement : '')) };
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.end().catch(() => {});
  }
}

/** triggered_data_change_violation: a trigger changed a row that another part of the same statement changes too. */
const TRIGGERED_DATA_CHANGE = '27000';

type ResolvedRules = ReturnType<typeof resolvedRules>;

/** The rules one after the other, in their order, in one transaction; the rows each changed. */
async function runInOrder(
  client: pg.ClientBase,
  ctx: DriverContext<PostgresConfig>,
  rules: ResolvedRules,
): Promise<Record<string, number>> {
  const changed: Record<string, number> = {};
  try {
    await client.query('BEGIN');
    for (const { rule, columns } of rules) {
      const statement = actionStatement(rule, columns, ctx.identifier, ctx.hashKey);
      changed[ruleLabel(rule)] = statement
        ? ((await run(client, ctx.trail, statement, ctx.identifier)).rowCount ?? 0)
        : 0;
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    // BEGIN and COMMIT (where a deferred constraint fails) run outside `run`: classified the same way.
    throw classifyDatabaseError(error, ctx.identifier);
  }
  return changed;
}

/** Rules on distinct tables as one statement (one round trip); the rows each changed. */
async function runAsOneStatement(
  client: pg.ClientBase,
  ctx: DriverContext<PostgresConfig>,
  rules: ResolvedRules,
): Promise<Record<string, number>> {
  const changed: Record<string, number> = {};
  const counts = (
    await run(client, ctx.trail, combinedActionStatement(rules, ctx.identifier, ctx.hashKey), ctx.identifier)
  ).rows[0] as Record<string, number>;
  rules.forEach(({ rule }, i) => {
    changed[ruleLabel(rule)] = Number(counts[`r${i}`]);
  });
  // The trail shows the rows the statement changed, as for separate statements.
  const exchange = ctx.trail.at(-1);
  if (exchange?.kind === 'sql') exchange.rowCount = Object.values(changed).reduce((a, b) => a + b, 0);
  return changed;
}

/** Rows per rule that still match the identifier outside their target state (one statement). */
async function remainingRows(
  client: pg.ClientBase,
  ctx: DriverContext<PostgresConfig>,
  rules: ReturnType<typeof resolvedRules>,
): Promise<Record<string, number>> {
  const row = (await run(client, ctx.trail, pendingCountsStatement(rules, ctx.identifier), ctx.identifier))
    .rows[0] as Record<string, number>;
  const remaining: Record<string, number> = {};
  rules.forEach(({ rule }, i) => {
    remaining[ruleLabel(rule)] = Number(row[`r${i}`]);
  });
  return remaining;
}

/**
 * The rules' statements, atomically, then the proof that no matching row is left. Rules on
 * distinct tables run as one statement (one round trip); rules that share a table run in
 * their order in one transaction, and so do the rest when one of the customer's triggers
 * changes a row that another rule changes as well (which one statement cannot do).
 */
async function deleteAndVerify(
  client: pg.ClientBase,
  ctx: DriverContext<PostgresConfig>,
  tables: DiscoveredTable[],
): Promise<Outcome> {
  const rules = resolvedRules(ctx.config, tables);
  let changed: Record<string, number>;
  // A key chain reads the rows of tables other rules change: the rules run one after the other, children first.
  if (!rulesOnDistinctTables(rules) || rules.some(({ rule }) => rule.via?.length))
    changed = await runInOrder(client, ctx, rules);
  else {
    try {
      changed = await runAsOneStatement(client, ctx, rules);
    } catch (error) {
      // Nothing was changed (one statement is atomic): run the same rules one by one.
      if ((error as { sqlState?: string }).sqlState !== TRIGGERED_DATA_CHANGE) throw error;
      changed = await runInOrder(client, ctx, rules);
    }
  }
  // Proof: after the commit, no row matching the identifier is left outside its target state.
  const remaining = await remainingRows(client, ctx, rules);
  return verifiedOutcome(changed, remaining, {
    stillThere: 'rows still matching',
    done: (total) => `${total} row(s) changed; verified that no matching rows remain`,
  });
}

/** A short-lived connection for admin operations (not the pooled sessions of deletions). */
async function withClient<T>(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
  statementTimeoutMs: number,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = await connect(ctx, { statementTimeoutMs });
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export const postgresDriver: Driver<PostgresConfig> = {
  type: 'POSTGRES',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds, or at the next maintenance window',

  requestDeletion: (ctx) =>
    inMaintenanceWindow(ctx, () =>
      withSession(ctx, ctx.config.statementTimeoutMs, classifyDatabaseError, async (session) => {
        const first = await session.schema();
        try {
          return await deleteAndVerify(session.client, ctx, first.tables);
        } catch (error) {
          // The schema may have changed since it was cached (a table renamed, a column added): look again once.
          if (!first.cached || error instanceof TransientError) throw error;
          return deleteAndVerify(session.client, ctx, (await session.schema(true)).tables);
        }
      }),
    ),

  async validateConfig(ctx) {
    return validateRules(ctx.config.rules, await withClient(ctx, 30_000, discoverSchema), ctx.config.keep);
  },

  discover: (ctx) => withClient(ctx, 30_000, discoverSchema),

  dryRun,

  /** The verification query of `deleteAndVerify` again, alone: rows matching the identifier outside their target state. */
  async reverify(ctx) {
    return withSession(ctx, ctx.config.statementTimeoutMs, classifyDatabaseError, async (session) => {
      const rules = resolvedRules(ctx.config, (await session.schema(true)).tables);
      return reverification(await remainingRows(session.client, ctx, rules), 'rows');
    });
  },

  close: closeSessions,

  async testConnection(ctx) {
    try {
      const client = await connect(ctx, { statementTimeoutMs: 5_000 });
      try {
        const { rows } = await client.query<{ version: string }>('SELECT version()');
        return { ok: true, message: `Connected: ${rows[0]?.version.split(' ').slice(0, 2).join(' ')}` };
      } finally {
        await client.end().catch(() => {});
      }
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  },
};
