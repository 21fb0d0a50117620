import { HASH_PREFIX, MASK_VALUE, type PostgresRule } from '@shared/integrations/postgres';

/** Quotes a PostgreSQL identifier: rule table and column names never reach SQL unquoted. */
export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new Error('Invalid identifier');
  return `"${name.replace(/"/g, '""')}"`;
}

export const tableRef = (rule: Pick<PostgresRule, 'schema' | 'table'>) => `${quoteIdent(rule.schema)}.${quoteIdent(rule.table)}`;

export interface ColumnInfo {
  dataType: string;
  nullable: boolean;
}
/** Columns of one table by name. */
export type TableColumns = Map<string, ColumnInfo>;

const NUMERIC = new Set(['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision']);
export const TEXT_TYPES = new Set(['text', 'character varying', 'character', 'citext']);

/** Whether `identifier` can equal a value of this column type at all (no cast errors, no full scans). */
function comparable(dataType: string, identifier: string): boolean {
  if (NUMERIC.has(dataType)) return /^-?\d+(\.\d+)?$/.test(identifier);
  if (dataType === 'uuid') return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(identifier);
  return true;
}

export interface Statement {
  text: string;
  values: string[];
}

/**
 * `WHERE` for a rule: each identifier column compared with its own parameter (so each
 * keeps its type and its index). Returns null when no row can match.
 */
export function matchClause(rule: PostgresRule, columns: TableColumns, identifier: string, paramOffset = 0): Statement | null {
  const usable = rule.identifierColumns.filter((c) => comparable(columns.get(c)?.dataType ?? 'text', identifier));
  if (usable.length === 0 || (rule.match === 'all' && usable.length < rule.identifierColumns.length)) return null;
  const parts = usable.map((c, i) => `${quoteIdent(c)} = $${paramOffset + i + 1}`);
  return { text: `(${parts.join(rule.match === 'all' ? ' AND ' : ' OR ')})`, values: usable.map(() => identifier) };
}

function softDeleteIsBoolean(rule: PostgresRule, columns: TableColumns): boolean {
  return columns.get(rule.softDeleteColumn!)?.dataType === 'boolean';
}

/** Rows matching the identifier that are not yet in the rule's target state. */
function pendingCondition(rule: PostgresRule, columns: TableColumns): string {
  const cols = rule.columns.map(quoteIdent);
  switch (rule.action) {
    case 'delete':
      return 'TRUE';
    case 'set_null':
      return `(${cols.map((c) => `${c} IS NOT NULL`).join(' OR ')})`;
    case 'hash':
      return `(${cols.map((c) => `(${c} IS NOT NULL AND ${c}::text NOT LIKE '${HASH_PREFIX}%')`).join(' OR ')})`;
    case 'mask':
      return `(${cols.map((c) => `(${c} IS NOT NULL AND ${c}::text <> '${MASK_VALUE}')`).join(' OR ')})`;
    case 'soft_delete': {
      const flag = quoteIdent(rule.softDeleteColumn!);
      return softDeleteIsBoolean(rule, columns) ? `${flag} IS NOT TRUE` : `${flag} IS NULL`;
    }
  }
}

/** The statement that carries out a rule (its parameters numbered after `paramOffset`). */
export function actionStatement(rule: PostgresRule, columns: TableColumns, identifier: string, paramOffset = 0): Statement | null {
  const match = matchClause(rule, columns, identifier, paramOffset);
  if (!match) return null;
  const where = `WHERE ${match.text} AND ${pendingCondition(rule, columns)}`;
  const table = tableRef(rule);
  const cols = rule.columns.map(quoteIdent);
  let text: string;
  switch (rule.action) {
    case 'delete':
      text = `DELETE FROM ${table} WHERE ${match.text}`;
      break;
    case 'set_null':
      text = `UPDATE ${table} SET ${cols.map((c) => `${c} = NULL`).join(', ')} ${where}`;
      break;
    case 'hash':
      text = `UPDATE ${table} SET ${cols
        .map((c) => `${c} = CASE WHEN ${c} IS NULL OR ${c}::text LIKE '${HASH_PREFIX}%' THEN ${c} ELSE '${HASH_PREFIX}' || encode(sha256(convert_to(${c}::text, 'UTF8')), 'hex') END`)
        .join(', ')} ${where}`;
      break;
    case 'mask':
      text = `UPDATE ${table} SET ${cols.map((c) => `${c} = CASE WHEN ${c} IS NULL THEN NULL ELSE '${MASK_VALUE}' END`).join(', ')} ${where}`;
      break;
    case 'soft_delete': {
      const flag = quoteIdent(rule.softDeleteColumn!);
      text = `UPDATE ${table} SET ${flag} = ${softDeleteIsBoolean(rule, columns) ? 'TRUE' : 'now()'} ${where}`;
      break;
    }
  }
  return { text, values: match.values };
}

/** Counts rows still to be handled: the dry run before, and the verification proof after. */
export function pendingCountStatement(rule: PostgresRule, columns: TableColumns, identifier: string, paramOffset = 0): Statement | null {
  const match = matchClause(rule, columns, identifier, paramOffset);
  if (!match) return null;
  return { text: `SELECT count(*)::int AS n FROM ${tableRef(rule)} WHERE ${match.text} AND ${pendingCondition(rule, columns)}`, values: match.values };
}

/** Every rule's pending count in one statement (one round trip): column `r<i>` for rule i, 0 when it cannot match. */
export function pendingCountsStatement(rules: { rule: PostgresRule; columns: TableColumns }[], identifier: string): Statement {
  const values: string[] = [];
  const parts = rules.map(({ rule, columns }, i) => {
    const statement = pendingCountStatement(rule, columns, identifier, values.length);
    if (!statement) return `0 AS r${i}`;
    values.push(...statement.values);
    return `(${statement.text}) AS r${i}`;
  });
  return { text: `SELECT ${parts.join(', ')}`, values };
}

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
export function combinedActionStatement(rules: { rule: PostgresRule; columns: TableColumns }[], identifier: string): Statement {
  const values: string[] = [];
  const parts: string[] = [];
  const counts = rules.map(({ rule, columns }, i) => {
    const statement = actionStatement(rule, columns, identifier, values.length);
    if (!statement) return `0 AS r${i}`;
    values.push(...statement.values);
    parts.push(`r${i} AS (${statement.text} RETURNING 1)`);
    return `(SELECT count(*) FROM r${i})::int AS r${i}`;
  });
  return { text: `${parts.length ? `WITH ${parts.join(', ')} ` : ''}SELECT ${counts.join(', ')}`, values };
}
