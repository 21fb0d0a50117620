import { HASH_PREFIX, LEGACY_HASH_PREFIX, MASK_VALUE, type PostgresRule } from '@shared/integrations/postgres';
import { hashOrMaskProblem } from '@shared/integrations/sql-columns';
import { literal, type ColumnInfo, type SqlDialect, type Statement, type TableColumns } from './dialect';
import { hmacPads } from './keyed-hash';
import type { ConfigIssue, DiscoveredTable } from '../types';
import { blockingForeignKeyIssues, keyChainIssues, type KeptTable } from './foreign-keys';

/** A deletion rule on one SQL table; the same shape for every dialect (for MySQL, `schema` is the database). */
export type SqlRule = PostgresRule;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A number written one way only: no leading zeros, no trailing fraction zeros, no exponent. In a
 * numeric column `'007' = 7` holds, so a code 007 would otherwise reach the subject whose id is 7.
 */
const CANONICAL_NUMBER = /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** PostgreSQL's integer types: a value outside the range (or with a fraction) is a cast error, not a mismatch. */
const PG_INTEGER_MAX: Record<string, bigint> = {
  smallint: 32_767n,
  integer: 2_147_483_647n,
  bigint: 9_223_372_036_854_775_807n,
};

/**
 * Whether `identifier` can equal a value of this column at all (no cast errors, no `'abc' = 0`
 * in MySQL, no comparison with a character set that cannot hold it, no full scans).
 */
function comparable(dialect: SqlDialect, column: ColumnInfo | undefined, identifier: string): boolean {
  const dataType = column?.dataType ?? 'text';
  if (column?.charset && dialect.charsetCanHold && !dialect.charsetCanHold(column.charset, identifier)) return false;
  if (dialect.isNumeric(dataType)) {
    if (!CANONICAL_NUMBER.test(identifier)) return false;
    const max = dialect.name === 'postgres' ? PG_INTEGER_MAX[dataType] : undefined;
    if (max === undefined) return true;
    if (identifier.includes('.')) return false;
    const value = BigInt(identifier);
    return value <= max && value >= -max - 1n;
  }
  if (dataType === 'uuid') return UUID.test(identifier);
  return true;
}

export const tableRef = (dialect: SqlDialect, rule: Pick<SqlRule, 'schema' | 'table'>) =>
  rule.schema ? `${dialect.quoteIdent(rule.schema)}.${dialect.quoteIdent(rule.table)}` : dialect.quoteIdent(rule.table);

/**
 * The identifier compared with the identifier columns of `columns`' table (qualified with
 * `alias` when given), each column exactly with its own parameter (so each keeps its type and
 * its index). Parameters are numbered after `paramOffset`. Null when no row can match.
 */
function identifierMatch(
  dialect: SqlDialect,
  rule: Pick<SqlRule, 'identifierColumns' | 'match'>,
  columns: Map<string, ColumnInfo>,
  identifier: string,
  paramOffset: number,
  alias: string | null,
): Statement | null {
  const usable = rule.identifierColumns.filter((c) => comparable(dialect, columns.get(c), identifier));
  if (usable.length === 0 || (rule.match === 'all' && usable.length < rule.identifierColumns.length)) return null;
  const values: string[] = [];
  const next = () => {
    values.push(identifier);
    return dialect.param(paramOffset + values.length);
  };
  const column = (c: string) => (alias ? `${alias}.${dialect.quoteIdent(c)}` : dialect.quoteIdent(c));
  // A number or a UUID column compares by value (exactly), and its text form need not be the
  // identifier's (a DECIMAL prints 42.00, MariaDB's UUID prints in lower case): no byte check there.
  const byValue = (type: string) => dialect.isNumeric(type) || type === 'uuid';
  const byValueParam = (type: string) =>
    dialect.asNumber && dialect.isNumeric(type) ? dialect.asNumber(next(), type) : next();
  const parts = usable.map((c) => {
    const type = columns.get(c)?.dataType ?? 'text';
    return byValue(type) ? `${column(c)} = ${byValueParam(type)}` : dialect.exactEquals(column(c), next);
  });
  return { text: `(${parts.join(rule.match === 'all' ? ' AND ' : ' OR ')})`, values };
}

/**
 * `WHERE` for a rule: its identifier columns compared with the identifier, on its own table or,
 * for a rule with a key chain, on the chain's last table, reached through one `IN (SELECT …)`
 * per key (order_items whose order's user matches). Parameters are numbered after
 * `paramOffset`. Null when no row can match.
 */
export function matchClause(
  dialect: SqlDialect,
  rule: SqlRule,
  columns: TableColumns,
  identifier: string,
  paramOffset = 0,
): Statement | null {
  const chain = rule.via ?? [];
  if (chain.length === 0) return identifierMatch(dialect, rule, columns, identifier, paramOffset, null);
  if (!columns.anchor) throw new Error(`The columns of ${rule.table}'s key chain were not resolved`);
  const anchor = identifierMatch(dialect, rule, columns.anchor, identifier, paramOffset, `k${chain.length}`);
  if (!anchor) return null;
  const tuple = (parts: string[]) => (parts.length === 1 ? parts[0]! : `(${parts.join(', ')})`);
  let condition = anchor.text;
  for (let i = chain.length - 1; i >= 0; i--) {
    const step = chain[i]!;
    const alias = `k${i + 1}`;
    const from = step.columns.map((c) => (i === 0 ? dialect.quoteIdent(c) : `k${i}.${dialect.quoteIdent(c)}`));
    const to = step.references.columns.map((c) => `${alias}.${dialect.quoteIdent(c)}`);
    let select = `SELECT ${to.join(', ')} FROM ${tableRef(dialect, step.references)} ${alias} WHERE ${condition}`;
    if (i === 0 && dialect.keyChainSubquery) select = dialect.keyChainSubquery(select);
    condition = `${tuple(from)} IN (${select})`;
  }
  return { text: `(${condition})`, values: anchor.values };
}

function softDeleteIsBoolean(dialect: SqlDialect, rule: SqlRule, columns: TableColumns): boolean {
  return dialect.isBoolean(columns.get(rule.softDeleteColumn!)?.dataType ?? '');
}

/** A value the hash action wrote: keyed, or in the unkeyed form of earlier versions (still done, never hashed again). */
const hashed = (dialect: SqlDialect, column: string) =>
  `(${dialect.startsWith(column, HASH_PREFIX)} OR ${dialect.startsWith(column, LEGACY_HASH_PREFIX)})`;

/** Rows matching the identifier that are not yet in the rule's target state. */
function pendingCondition(dialect: SqlDialect, rule: SqlRule, columns: TableColumns): string {
  const cols = rule.columns.map(dialect.quoteIdent);
  switch (rule.action) {
    case 'delete':
      return 'TRUE';
    case 'set_null':
      return `(${cols.map((c) => `${c} IS NOT NULL`).join(' OR ')})`;
    case 'hash':
      return `(${cols.map((c) => `(${c} IS NOT NULL AND NOT ${hashed(dialect, c)})`).join(' OR ')})`;
    case 'mask':
      return `(${cols.map((c) => `(${c} IS NOT NULL AND ${dialect.differsFrom(c, MASK_VALUE)})`).join(' OR ')})`;
    case 'soft_delete': {
      const flag = dialect.quoteIdent(rule.softDeleteColumn!);
      return softDeleteIsBoolean(dialect, rule, columns) ? `${flag} IS NOT TRUE` : `${flag} IS NULL`;
    }
  }
}

/**
 * The hash action's SET list: each column's HMAC-SHA256 under the integration's key, whose
 * padded forms are bound parameters (`bind` numbers them), so neither the key nor anything
 * derived from it is in the statement's text, which the audit trail records.
 */
function hashAssignments(dialect: SqlDialect, cols: string[], hashKey: Buffer | null, bind: (value: string) => string) {
  const pads = hmacPads(hashKey);
  return cols
    .map((c) => {
      const keyed = dialect.hmacSha256Hex(c, (which) => bind(pads[which]));
      return `${c} = CASE WHEN ${c} IS NULL OR ${hashed(dialect, c)} THEN ${dialect.unchangedAsHashText(c)} ELSE ${dialect.concat(literal(HASH_PREFIX), keyed)} END`;
    })
    .join(', ');
}

/**
 * The statement that carries out a rule (its parameters numbered after `paramOffset`), or null
 * when no row can match. `hashKey`: the integration's key, which only the hash action uses.
 */
export function actionStatement(
  dialect: SqlDialect,
  rule: SqlRule,
  columns: TableColumns,
  identifier: string,
  hashKey: Buffer | null,
  paramOffset = 0,
): Statement | null {
  const table = tableRef(dialect, rule);
  const cols = rule.columns.map(dialect.quoteIdent);
  const setValues: string[] = [];
  const bind = (value: string) => {
    setValues.push(value);
    return dialect.param(paramOffset + setValues.length);
  };
  const hashSet = rule.action === 'hash' ? hashAssignments(dialect, cols, hashKey, bind) : '';
  const match = matchClause(dialect, rule, columns, identifier, paramOffset + setValues.length);
  if (!match) return null;
  const where = `WHERE ${match.text} AND ${pendingCondition(dialect, rule, columns)}`;
  let text: string;
  switch (rule.action) {
    case 'delete':
      text = `DELETE FROM ${table} WHERE ${match.text}`;
      break;
    case 'set_null':
      text = `UPDATE ${table} SET ${cols.map((c) => `${c} = NULL`).join(', ')} ${where}`;
      break;
    case 'hash':
      text = `UPDATE ${table} SET ${hashSet} ${where}`;
      break;
    case 'mask':
      text = `UPDATE ${table} SET ${cols.map((c) => `${c} = CASE WHEN ${c} IS NULL THEN NULL ELSE ${literal(MASK_VALUE)} END`).join(', ')} ${where}`;
      break;
    case 'soft_delete': {
      const flag = dialect.quoteIdent(rule.softDeleteColumn!);
      text = `UPDATE ${table} SET ${flag} = ${softDeleteIsBoolean(dialect, rule, columns) ? 'TRUE' : dialect.now} ${where}`;
      break;
    }
  }
  return { text, values: [...setValues, ...match.values] };
}

/** Counts rows still to be handled: the dry run before, and the verification proof after. */
export function pendingCountStatement(
  dialect: SqlDialect,
  rule: SqlRule,
  columns: TableColumns,
  identifier: string,
  paramOffset = 0,
): Statement | null {
  const match = matchClause(dialect, rule, columns, identifier, paramOffset);
  if (!match) return null;
  return {
    text: `SELECT ${dialect.countAs('n')} FROM ${tableRef(dialect, rule)} WHERE ${match.text} AND ${pendingCondition(dialect, rule, columns)}`,
    values: match.values,
  };
}

/** Every rule's pending count in one statement (one round trip): column `r<i>` for rule i, 0 when it cannot match. */
export function pendingCountsStatement(
  dialect: SqlDialect,
  rules: { rule: SqlRule; columns: TableColumns }[],
  identifier: string,
): Statement {
  const values: string[] = [];
  const parts = rules.map(({ rule, columns }, i) => {
    const statement = pendingCountStatement(dialect, rule, columns, identifier, values.length);
    if (!statement) return `0 AS r${i}`;
    values.push(...statement.values);
    return `(${statement.text}) AS r${i}`;
  });
  return { text: `SELECT ${parts.join(', ')}`, values };
}

export type { DiscoveredTable };

/**
 * A rule as the dry run, the evidence and the trail name it: its action and table, and for a
 * rule reached through keys, the tables on the way (`delete on public.order_items via public.orders, public.users`).
 */
export const ruleLabel = (rule: SqlRule) =>
  `${rule.action} on ${rule.schema}.${rule.table}` +
  (rule.via?.length ? ` via ${rule.via.map((s) => `${s.references.schema}.${s.references.table}`).join(', ')}` : '');

export function findTable(
  tables: DiscoveredTable[],
  rule: Pick<SqlRule, 'schema' | 'table'>,
): DiscoveredTable | undefined {
  return tables.find((t) => t.schema === rule.schema && t.table === rule.table);
}

/** The columns of a rule's table, and of its key chain's last table as `anchor`; null when either is missing. */
export function columnsOf(
  tables: DiscoveredTable[],
  rule: Pick<SqlRule, 'schema' | 'table'> & Partial<Pick<SqlRule, 'via'>>,
): TableColumns | null {
  const table = findTable(tables, rule);
  if (!table) return null;
  const columns: TableColumns = new Map(table.columns.map((c) => [c.name, c]));
  const last = rule.via?.at(-1);
  if (last) {
    const anchor = findTable(tables, last.references);
    if (!anchor) return null;
    columns.anchor = new Map(anchor.columns.map((c) => [c.name, c]));
  }
  return columns;
}

/** Problems with rules against the discovered schema, as zod-like issues for the form. */
export function validateRules(
  dialect: SqlDialect,
  rules: SqlRule[],
  tables: DiscoveredTable[],
  kept: KeptTable[] = [],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  rules.forEach((rule, i) => {
    const columns = columnsOf(tables, { schema: rule.schema, table: rule.table });
    if (!columns) {
      issues.push({
        path: ['rules', i, 'table'],
        message: `Table ${rule.schema}.${rule.table} does not exist or is not visible to this user`,
      });
      return;
    }
    const chainIssues = keyChainIssues(rule, tables);
    issues.push(...chainIssues.map((issue) => ({ ...issue, path: ['rules', i, ...issue.path] })));
    if (chainIssues.length > 0) return;
    const identifierTable = columnsOf(tables, rule)?.anchor ?? columns;
    for (const c of rule.identifierColumns)
      if (!identifierTable.has(c))
        issues.push({ path: ['rules', i, 'identifierColumns'], message: `Column ${c} does not exist` });
    for (const c of rule.columns) {
      const info = columns.get(c);
      if (!info) issues.push({ path: ['rules', i, 'columns'], message: `Column ${c} does not exist` });
      else if (rule.action === 'set_null' && !info.nullable)
        issues.push({ path: ['rules', i, 'columns'], message: `Column ${c} is NOT NULL and cannot be set to NULL` });
      else if ((rule.action === 'hash' || rule.action === 'mask') && !dialect.isText(info.dataType))
        issues.push({
          path: ['rules', i, 'columns'],
          message: `Column ${c} is ${info.dataType}; only text columns can be ${rule.action}ed`,
        });
      else if (rule.action === 'hash' || rule.action === 'mask') {
        const problem = hashOrMaskProblem(rule.action, { ...info, name: c });
        if (problem) issues.push({ path: ['rules', i, 'columns'], message: problem });
      }
    }
    if (rule.action === 'soft_delete') {
      const info = columns.get(rule.softDeleteColumn!);
      if (!info)
        issues.push({
          path: ['rules', i, 'softDeleteColumn'],
          message: `Column ${rule.softDeleteColumn} does not exist`,
        });
      else if (!dialect.isBoolean(info.dataType) && !dialect.isTimestamp(info.dataType))
        issues.push({
          path: ['rules', i, 'softDeleteColumn'],
          message: `Column ${rule.softDeleteColumn} must be boolean or a timestamp`,
        });
    }
  });
  if (issues.length === 0) issues.push(...blockingForeignKeyIssues(rules, tables, kept));
  return issues;
}
