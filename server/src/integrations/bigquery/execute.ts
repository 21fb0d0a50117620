import {
  DEFAULT_TIME_TRAVEL_HOURS,
  FAIL_SAFE_DAYS,
  timeTravelNotice,
  type BigqueryConfig,
  type BigqueryPlace,
} from '@shared/integrations/bigquery';
import type { DiscoveredTable, DriverContext, Outcome, ReverifyResult } from '../types';
import { PermanentError } from '../types';
import type { Statement } from '../sql/dialect';
import {
  actionStatement,
  pendingCountsStatement,
  pendingCountStatement,
  ruleLabel,
  validateRules,
  type SqlRule,
} from '../sql/rules';
import { resolveRules } from '../sql/foreign-keys';
import type { ConfigIssue } from '../types';
import { reverification, stillMatching, verifiedOutcome } from '../stores/verification';
import { bigqueryDialect, quoteBigqueryIdent } from './dialect';
import { bigqueryJobs, type BigqueryJobs, type JobContext } from './jobs';

/** The region's INFORMATION_SCHEMA of the project: `project`.`region-eu`.INFORMATION_SCHEMA.<view>. */
const regionView = (config: BigqueryPlace, view: string) =>
  `${quoteBigqueryIdent(config.projectId)}.${quoteBigqueryIdent(`region-${config.location.toLowerCase()}`)}.INFORMATION_SCHEMA.${view}`;

/** STRING(255) is STRING holding at most 255 characters; NUMERIC(10, 2) is NUMERIC. */
function columnType(dataType: string): { dataType: string; maxLength?: number } {
  const string = /^STRING\((\d+)\)$/.exec(dataType);
  if (string) return { dataType: 'STRING', maxLength: Number(string[1]) };
  return { dataType: dataType.replace(/\(.*\)$/, '') };
}

/** Tables and columns of every dataset of the project in the configured location (INFORMATION_SCHEMA.COLUMNS). */
export async function discoverTables(jobs: BigqueryJobs, config: BigqueryPlace): Promise<DiscoveredTable[]> {
  const { rows } = await jobs.query(
    {
      text: `SELECT table_schema, table_name, column_name, data_type, is_nullable FROM ${regionView(config, 'COLUMNS')} ORDER BY table_schema, table_name, ordinal_position`,
      values: [],
    },
    { rows: true },
  );
  const tables = new Map<string, DiscoveredTable>();
  for (const [schema, table, name, dataType, nullable] of rows as string[][]) {
    const key = `${schema}.${table}`;
    if (!tables.has(key)) tables.set(key, { schema: schema!, table: table!, columns: [] });
    tables.get(key)!.columns.push({ name: name!, nullable: nullable === 'YES', ...columnType(dataType!) });
  }
  return [...tables.values()];
}

/**
 * Hours of time travel of each dataset the rules name (INFORMATION_SCHEMA.SCHEMATA_OPTIONS,
 * option max_time_travel_hours); a dataset that does not set it has BigQuery's default, 168.
 */
async function timeTravelHours(jobs: BigqueryJobs, config: BigqueryConfig): Promise<number> {
  const { rows } = await jobs.query(
    {
      text: `SELECT schema_name, option_value FROM ${regionView(config, 'SCHEMATA_OPTIONS')} WHERE option_name = 'max_time_travel_hours'`,
      values: [],
    },
    { rows: true },
  );
  const set = new Map((rows as string[][]).map(([schema, value]) => [schema, Number(value)]));
  const hours = [...new Set(config.rules.map((r) => r.schema))].map((dataset) => {
    const value = set.get(dataset);
    return value !== undefined && Number.isFinite(value) && value > 0 ? value : DEFAULT_TIME_TRAVEL_HOURS;
  });
  return Math.max(...hours);
}

/** Rules with their table's columns, in the order they run (BigQuery reports no enforced foreign keys: as written). */
const resolvedRules = (config: BigqueryConfig, tables: DiscoveredTable[]) =>
  resolveRules(config.rules, tables, 'this account');
type ResolvedRules = ReturnType<typeof resolvedRules>;

/** GoogleSQL compares a key chain's columns one at a time: a link of several columns cannot be written there. */
function keyChainIssues(rules: SqlRule[]): ConfigIssue[] {
  return rules.flatMap((rule, i) =>
    (rule.via ?? []).some((step) => step.columns.length > 1)
      ? [{ path: ['rules', i, 'via'], message: 'BigQuery rules follow keys of one column only' }]
      : [],
  );
}

/** Refuses a statement BigQuery's dry run says would read more than the integration's ceiling. */
async function withinCeiling(jobs: BigqueryJobs, config: BigqueryConfig, statement: Statement, rule: SqlRule) {
  const bytes = await jobs.bytesToScan(statement);
  if (bytes > config.maxBytesScanned)
    throw new PermanentError(
      `${ruleLabel(rule)} would read ${bytes} bytes, more than this integration's ceiling of ${config.maxBytesScanned} bytes (maxBytesScanned); nothing was run`,
    );
  return bytes;
}

/** Save-time check of the rules against the live datasets, and of each rule's statement against the byte ceiling. */
export async function validateBigqueryRules(ctx: JobContext<BigqueryConfig>): Promise<ConfigIssue[]> {
  const jobs = bigqueryJobs(ctx);
  const tables = await discoverTables(jobs, ctx.config);
  const issues = [
    ...keyChainIssues(ctx.config.rules),
    ...validateRules(bigqueryDialect, ctx.config.rules, tables, ctx.config.keep),
  ];
  if (issues.length > 0) return issues;
  // "0" is comparable with every column type, so each rule's statement reads all its identifier columns.
  for (const [i, { rule, columns }] of resolvedRules(ctx.config, tables).entries()) {
    const statement = actionStatement(bigqueryDialect, rule, columns, '0', Buffer.alloc(32));
    if (!statement) continue;
    try {
      await withinCeiling(jobs, ctx.config, statement, rule);
    } catch (error) {
      if (!(error instanceof PermanentError)) throw error;
      issues.push({ path: ['rules', i], message: error.message });
    }
  }
  return issues;
}

/** Rows each rule would change for the identifier (count jobs, read-only), and the bytes its statement would read. */
export async function bigqueryDryRun(ctx: JobContext<BigqueryConfig> & { identifier: string }) {
  const jobs = bigqueryJobs(ctx);
  const rules = resolvedRules(ctx.config, await discoverTables(jobs, ctx.config));
  const results = [];
  for (const { rule, columns } of rules) {
    const action = actionStatement(bigqueryDialect, rule, columns, ctx.identifier, Buffer.alloc(32));
    const count = pendingCountStatement(bigqueryDialect, rule, columns, ctx.identifier);
    const bytes = action ? await withinCeiling(jobs, ctx.config, action, rule) : 0;
    const rows = count ? Number((await jobs.query(count, { rows: true, ceiling: true })).rows[0]?.[0] ?? 0) : 0;
    results.push({
      rule: `${ruleLabel(rule)} (reads ${bytes} bytes)`,
      table: `${rule.schema}.${rule.table}`,
      action: rule.action,
      rows,
    });
  }
  return results;
}

/** Rows per rule that still match the identifier outside their target state (one query job). */
async function remainingRows(jobs: BigqueryJobs, rules: ResolvedRules, identifier: string) {
  const { rows } = await jobs.query(pendingCountsStatement(bigqueryDialect, rules, identifier), {
    rows: true,
    ceiling: true,
  });
  const remaining: Record<string, number> = {};
  rules.forEach(({ rule }, i) => {
    remaining[ruleLabel(rule)] = (remaining[ruleLabel(rule)] ?? 0) + Number(rows[0]?.[i] ?? 0);
  });
  return remaining;
}

/**
 * Each rule as one DML job, after BigQuery's dry run of the same statement is within the byte
 * ceiling; then the proof that no matching row is left outside its target state. A job is atomic
 * on its own and every statement skips the rows already in their target state, so a step that
 * failed half-way finishes the rest when it runs again.
 */
export async function bigqueryDeleteAndVerify(ctx: DriverContext<BigqueryConfig>): Promise<Outcome> {
  const jobs = bigqueryJobs(ctx);
  const rules = resolvedRules(ctx.config, await discoverTables(jobs, ctx.config));
  const changed: Record<string, number> = {};
  for (const { rule, columns } of rules) {
    const statement = actionStatement(bigqueryDialect, rule, columns, ctx.identifier, ctx.hashKey);
    if (!statement) {
      changed[ruleLabel(rule)] = changed[ruleLabel(rule)] ?? 0;
      continue;
    }
    await withinCeiling(jobs, ctx.config, statement, rule);
    changed[ruleLabel(rule)] =
      (changed[ruleLabel(rule)] ?? 0) + (await jobs.query(statement, { rows: false, ceiling: true })).affectedRows;
  }
  const remaining = await remainingRows(jobs, rules, ctx.identifier);
  // Anything still found: a retry naming it.
  if (stillMatching(remaining)) return verifiedOutcome(changed, remaining, VERIFIED_WORDS);
  const hours = await timeTravelHours(jobs, ctx.config);
  const notice = timeTravelNotice(hours);
  const outcome = verifiedOutcome(changed, remaining, {
    ...VERIFIED_WORDS,
    done: (total) => `${VERIFIED_WORDS.done(total)}. ${notice}`,
  });
  // What BigQuery still keeps, for the certificate: the dataset's window, then fail-safe.
  const timeTravel = { notice, longestDays: Math.ceil(hours / 24), failSafeDays: FAIL_SAFE_DAYS };
  return outcome.kind === 'success' ? { ...outcome, evidence: { ...outcome.evidence, timeTravel } } : outcome;
}

const VERIFIED_WORDS = {
  stillThere: 'rows still matching',
  done: (total: number) => `${total} row(s) changed; verified that no matching rows remain`,
};

/** The deletion's proof again, alone and read-only (re-verification). */
export async function bigqueryReverify(ctx: DriverContext<BigqueryConfig>): Promise<ReverifyResult> {
  const jobs = bigqueryJobs(ctx);
  const rules = resolvedRules(ctx.config, await discoverTables(jobs, ctx.config));
  return reverification(await remainingRows(jobs, rules, ctx.identifier), 'rows');
}
