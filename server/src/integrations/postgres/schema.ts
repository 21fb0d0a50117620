import type pg from 'pg';
import type { PostgresRule } from '@shared/integrations/postgres';
import { TEXT_TYPES, type TableColumns } from './sql';

import type { ConfigIssue, DiscoveredTable } from '../types';

/** Tables and columns the connected user can see, through information_schema. */
export async function discoverSchema(client: pg.Client): Promise<DiscoveredTable[]> {
  const { rows } = await client.query<{ table_schema: string; table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    `SELECT c.table_schema, c.table_name, c.column_name, c.data_type, c.is_nullable
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE t.table_type = 'BASE TABLE' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
      ORDER BY c.table_schema, c.table_name, c.ordinal_position`,
  );
  const tables = new Map<string, DiscoveredTable>();
  for (const row of rows) {
    const key = `${row.table_schema}.${row.table_name}`;
    let table = tables.get(key);
    if (!table) tables.set(key, (table = { schema: row.table_schema, table: row.table_name, columns: [] }));
    table.columns.push({ name: row.column_name, dataType: row.data_type, nullable: row.is_nullable === 'YES' });
  }
  return [...tables.values()];
}

export function columnsOf(tables: DiscoveredTable[], rule: Pick<PostgresRule, 'schema' | 'table'>): TableColumns | null {
  const table = tables.find((t) => t.schema === rule.schema && t.table === rule.table);
  if (!table) return null;
  return new Map(table.columns.map((c) => [c.name, { dataType: c.dataType, nullable: c.nullable }]));
}

/** Problems with rules against the discovered schema, as zod-like issues for the form. */
export function validateRules(rules: PostgresRule[], tables: DiscoveredTable[]): ConfigIssue[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  rules.forEach((rule, i) => {
    const columns = columnsOf(tables, rule);
    if (!columns) {
      issues.push({ path: ['rules', i, 'table'], message: `Table ${rule.schema}.${rule.table} does not exist or is not visible to this user` });
      return;
    }
    for (const c of rule.identifierColumns) if (!columns.has(c)) issues.push({ path: ['rules', i, 'identifierColumns'], message: `Column ${c} does not exist` });
    for (const c of rule.columns) {
      const info = columns.get(c);
      if (!info) issues.push({ path: ['rules', i, 'columns'], message: `Column ${c} does not exist` });
      else if (rule.action === 'set_null' && !info.nullable) issues.push({ path: ['rules', i, 'columns'], message: `Column ${c} is NOT NULL and cannot be set to NULL` });
      else if ((rule.action === 'hash' || rule.action === 'mask') && !TEXT_TYPES.has(info.dataType))
        issues.push({ path: ['rules', i, 'columns'], message: `Column ${c} is ${info.dataType}; only text columns can be ${rule.action}ed` });
    }
    if (rule.action === 'soft_delete') {
      const info = columns.get(rule.softDeleteColumn!);
      if (!info) issues.push({ path: ['rules', i, 'softDeleteColumn'], message: `Column ${rule.softDeleteColumn} does not exist` });
      else if (info.dataType !== 'boolean' && !info.dataType.startsWith('timestamp'))
        issues.push({ path: ['rules', i, 'softDeleteColumn'], message: `Column ${rule.softDeleteColumn} must be boolean or a timestamp` });
    }
  });
  return issues;
}
