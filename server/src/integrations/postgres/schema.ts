import type pg from 'pg';
import type { PostgresRule } from '@shared/integrations/postgres';
import { validateRules as validateSqlRules } from '../sql/rules';
import type { ConfigIssue, DiscoveredTable } from '../types';
import { postgresDialect } from './sql';

/** Tables and columns (with their length limits and unique indexes) the connected user can see. */
export async function discoverSchema(client: pg.Client): Promise<DiscoveredTable[]> {
  const { rows } = await client.query<{
    table_schema: string;
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
    character_maximum_length: number | null;
    is_unique: boolean;
  }>(
    // A column counts as unique when a unique index (a primary key included, a partial one too)
    // is on it alone, or on one expression of it alone (lower(email)): masking gives its rows one
    // value. (With other columns, those may tell the rows apart: not refused.) The columns an
    // expression reads are the Vars of its stored tree (indexprs; the predicate and INCLUDE
    // columns are kept apart from it).
    `SELECT c.table_schema, c.table_name, c.column_name, c.data_type, c.is_nullable, c.character_maximum_length,
            EXISTS (
              SELECT 1 FROM pg_catalog.pg_index i
                JOIN pg_catalog.pg_class r ON r.oid = i.indrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace
                JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attname = c.column_name
               WHERE i.indisunique AND i.indnkeyatts = 1 AND n.nspname = c.table_schema AND r.relname = c.table_name
                 AND (i.indkey[0] = a.attnum
                      OR (i.indkey[0] = 0 AND ARRAY(
                            SELECT DISTINCT v[1]::int FROM regexp_matches(i.indexprs::text, ':varattno (\\d+)', 'g') AS v
                          ) = ARRAY[a.attnum::int]))
            ) AS is_unique
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
    table.columns.push({
      name: row.column_name,
      dataType: row.data_type,
      nullable: row.is_nullable === 'YES',
      ...(row.character_maximum_length !== null ? { maxLength: Number(row.character_maximum_length) } : {}),
      ...(row.is_unique ? { unique: true } : {}),
    });
  }
  return [...tables.values()];
}

export { columnsOf } from '../sql/rules';

/** Problems with rules against the discovered schema, as zod-like issues for the form. */
export const validateRules = (rules: PostgresRule[], tables: DiscoveredTable[]): ConfigIssue[] =>
  validateSqlRules(postgresDialect, rules, tables);
