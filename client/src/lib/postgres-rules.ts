import type { ForeignKey } from '@shared/integrations/foreign-keys';
import type { PostgresConfig, PostgresRule } from '@shared/integrations/postgres';
import { hashOrMaskProblem, isSoftDeleteColumnType, isTextColumnType } from '@shared/integrations/sql-columns';

/** Columns as schema discovery reports them. */
export interface DiscoveredColumn {
  name: string;
  dataType: string;
  nullable: boolean;
  /** Characters a text column holds at most, where the database reports it. */
  maxLength?: number;
  /** A primary key or unique index on this column alone. */
  unique?: boolean;
}
export interface DiscoveredTable {
  schema: string;
  table: string;
  columns: DiscoveredColumn[];
  /** Key-value tables (DynamoDB): the secondary indexes a rule can query by. */
  indexes?: { name: string }[];
  /** SQL databases: the table's foreign keys, with their ON DELETE behaviour. */
  foreignKeys?: ForeignKey[];
}

export type RuleDraft = Omit<PostgresRule, 'columns' | 'match' | 'schema'> & {
  schema: string;
  match: 'any' | 'all';
  columns: string[];
};
export type PostgresDraft = Omit<PostgresConfig, 'rules' | 'statementTimeoutMs'> & {
  rules: RuleDraft[];
  statementTimeoutMs?: number;
};

export const ACTION_LABEL: Record<RuleDraft['action'], string> = {
  delete: 'Delete the rows',
  set_null: 'Set columns to NULL',
  hash: 'Replace columns with a hash',
  mask: 'Mask columns',
  soft_delete: 'Soft delete (flag or timestamp)',
};

/**
 * Columns an action may change: NULL needs a nullable column; hash and mask need text the value
 * fits in, and mask a column outside any unique key (the server checks the same when saving).
 */
export function eligibleColumns(action: RuleDraft['action'], columns: DiscoveredColumn[]): DiscoveredColumn[] {
  if (action === 'set_null') return columns.filter((c) => c.nullable);
  if (action === 'hash' || action === 'mask')
    return columns.filter((c) => isTextColumnType(c.dataType) && !hashOrMaskProblem(action, c));
  return [];
}

/** Soft delete sets a boolean flag to true or a timestamp to now(). */
export function softDeleteColumns(columns: DiscoveredColumn[]): DiscoveredColumn[] {
  return columns.filter((c) => isSoftDeleteColumnType(c.dataType));
}

export function tableKey(t: { schema: string; table: string }): string {
  return `${t.schema}.${t.table}`;
}

/** A new rule on a table, with a likely identifier column picked (email, user id...). */
export function newRule(table: DiscoveredTable | undefined): RuleDraft {
  const guess = table?.columns.find((c) => /^(email|user_?email|user_?id|distinct_?id|customer_?email)$/i.test(c.name));
  return {
    schema: table?.schema ?? 'public',
    table: table?.table ?? '',
    identifierColumns: guess ? [guess.name] : [],
    match: 'any',
    action: 'delete',
    columns: [],
  };
}

/** After the table or action changes, drop choices that no longer apply. */
export function normalizeRule(rule: RuleDraft, table: DiscoveredTable | undefined): RuleDraft {
  if (!table) return rule;
  const names = new Set(table.columns.map((c) => c.name));
  const eligible = new Set(eligibleColumns(rule.action, table.columns).map((c) => c.name));
  const soft = new Set(softDeleteColumns(table.columns).map((c) => c.name));
  return {
    ...rule,
    // Through a key chain, the identifier columns are the chain's last table's, not this one's.
    identifierColumns: rule.via?.length ? rule.identifierColumns : rule.identifierColumns.filter((c) => names.has(c)),
    columns: rule.columns.filter((c) => eligible.has(c)),
    softDeleteColumn:
      rule.action === 'soft_delete' && rule.softDeleteColumn && soft.has(rule.softDeleteColumn)
        ? rule.softDeleteColumn
        : undefined,
  };
}

/** One line a person can check: what the rule does to which rows. */
export function describeRule(rule: RuleDraft): string {
  if (!rule.table) return 'Pick a table';
  const where = rule.identifierColumns.length
    ? rule.identifierColumns.join(rule.match === 'all' ? ' and ' : ' or ') + ' = identifier'
    : 'no identifier column yet';
  const target = `${rule.schema}.${rule.table}`;
  const through = rule.via?.length
    ? `whose ${rule.via.map((s) => `${s.references.schema}.${s.references.table}`).join(' → ')} row has `
    : 'where ';
  switch (rule.action) {
    case 'delete':
      return `Delete rows of ${target} ${through}${where}`;
    case 'soft_delete':
      return `Mark rows of ${target} deleted (${rule.softDeleteColumn ?? 'no column yet'}) ${through}${where}`;
    default:
      return `${ACTION_LABEL[rule.action]} (${rule.columns.join(', ') || 'no column yet'}) in ${target} ${through}${where}`;
  }
}

export function moveItem<T>(list: T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length) return list;
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
}
