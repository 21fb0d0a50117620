import type { PostgresRule } from '@shared/integrations/postgres';
import type { SqlDialect, Statement, TableColumns } from '../sql/dialect';
import * as rules from '../sql/rules';
import { POSTGRES_TEXT_TYPES } from '@shared/integrations/sql-columns';

export type { Statement, TableColumns } from '../sql/dialect';

/** Quotes a PostgreSQL identifier: rule table and column names never reach SQL unquoted. */
export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new Error('Invalid identifier');
  return `"${name.replace(/"/g, '""')}"`;
}

const NUMERIC = new Set(['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision']);

/** PostgreSQL: `=` on text is exact under the default (deterministic) collations. */
export const postgresDialect: SqlDialect = {
  name: 'postgres',
  quoteIdent,
  param: (n) => `$${n}`,
  exactEquals: (column, next) => `${column} = ${next()}`,
  asText: (column) => `${column}::text`,
  startsWith: (column, prefix) => `${column}::text LIKE '${prefix}%'`,
  differsFrom: (column, value) => `${column}::text <> '${value}'`,
  // HMAC as RFC 2104 builds it from SHA-256, in core PostgreSQL (pgcrypto's hmac() may not be installed).
  hmacSha256Hex: (column, pad) =>
    `encode(sha256(decode(${pad('outer')}, 'hex') || sha256(decode(${pad('inner')}, 'hex') || convert_to(${column}::text, 'UTF8'))), 'hex')`,
  unchangedAsHashText: (column) => column,
  concat: (...parts) => parts.join(' || '),
  now: 'now()',
  countAs: (alias) => `count(*)::int AS ${alias}`,
  isNumeric: (t) => NUMERIC.has(t),
  isText: (t) => POSTGRES_TEXT_TYPES.has(t),
  isBoolean: (t) => t === 'boolean',
  isTimestamp: (t) => t.startsWith('timestamp'),
};

export const tableRef = (rule: Pick<PostgresRule, 'schema' | 'table'>) => rules.tableRef(postgresDialect, rule);

export const matchClause = (rule: PostgresRule, columns: TableColumns, identifier: string, paramOffset = 0) =>
  rules.matchClause(postgresDialect, rule, columns, identifier, paramOffset);
export const actionStatement = (
  rule: PostgresRule,
  columns: TableColumns,
  identifier: string,
  hashKey: Buffer | null,
  paramOffset = 0,
) => rules.actionStatement(postgresDialect, rule, columns, identifier, hashKey, paramOffset);
export const pendingCountStatement = (rule: PostgresRule, columns: TableColumns, identifier: string, paramOffset = 0) =>
  rules.pendingCountStatement(postgresDialect, rule, columns, identifier, paramOffset);
export const pendingCountsStatement = (
  list: { rule: PostgresRule; columns: TableColumns }[],
  identifier: string,
): Statement => rules.pendingCountsStatement(postgresDialect, list, identifier);

/** Whether no two rules name the same table: then they can run as one statement (see `combinedActionStatement`). */
export function rulesOnDistinctTables(rules: { rule: PostgresRule }[]): boolean {
  return new Set(rules.map(({ rule }) => tableRef(rule))).size === rules.length;
}

/**
 * Every rule as one statement: one data-modifying CTE per rule (`RETURNING 1`), and column
 * `r<i>` the rows rule i changed (0 when it cannot match). A single statement is atomic on
 * its own, so it needs no BEGIN/COMMIT round trips and holds its locks in the customer's
 * database for the shortest time. Foreign keys are checked at the end of the statement, so
 * the rules' order does not matter. Only for rules on distinct tables: two parts of one
 * statement must not change the same row.
 */
export function combinedActionStatement(
  rules: { rule: PostgresRule; columns: TableColumns }[],
  identifier: string,
  hashKey: Buffer | null,
): Statement {
  const values: string[] = [];
  const parts: string[] = [];
  const counts = rules.map(({ rule, columns }, i) => {
    const statement = actionStatement(rule, columns, identifier, hashKey, values.length);
    if (!statement) return `0 AS r${i}`;
    values.push(...statement.values);
    parts.push(`r${i} AS (${statement.text} RETURNING 1)`);
    return `(SELECT count(*) FROM r${i})::int AS r${i}`;
  });
  return { text: `${parts.length ? `WITH ${parts.join(', ')} ` : ''}SELECT ${counts.join(', ')}`, values };
}
