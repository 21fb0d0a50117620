import type pg from 'pg';
import type { PostgresRule } from '@shared/integrations/postgres';
import type { OnDelete } from '@shared/integrations/foreign-keys';
import { validateRules as validateSqlRules } from '../sql/rules';
import type { KeptTable } from '../sql/foreign-keys';
import type { ConfigIssue, DiscoveredTable } from '../types';
import { postgresDialect } from './sql';

/** Tables and columns (with their length limits and unique indexes) the connected user can see, and their foreign keys. */
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
  for (const key of await discoverForeignKeys(client)) {
    const child = tables.get(`${key.schema}.${key.table}`);
    const parent = tables.get(`${key.references.schema}.${key.references.table}`);
    if (!child || !parent) continue;
    (child.foreignKeys ??= []).push({
      name: key.name,
      columns: key.columns,
      references: key.references,
      onDelete: key.onDelete,
    });
    const referrer = `${child.schema}.${child.table}`;
    if (!(parent.referencedBy ??= []).includes(referrer)) parent.referencedBy.push(referrer);
  }
  return [...tables.values()];
}

/** pg_constraint.confdeltype: what a deletion of a referenced row does. */
const ON_DELETE: Record<string, OnDelete> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/**
 * Foreign keys from pg_catalog (information_schema's views list a composite key's column pairs
 * only through constraint names, which need not be unique within a schema): each key's columns
 * and referenced columns in key order, and its ON DELETE behaviour.
 */
async function discoverForeignKeys(client: pg.Client) {
  const { rows } = await client.query<{
    name: string;
    schema: string;
    table: string;
    columns: string[];
    ref_schema: string;
    ref_table: string;
    ref_columns: string[];
    on_delete: string;
  }>(
    `SELECT con.conname AS name, n.nspname AS schema, c.relname AS table, rn.nspname AS ref_schema, rc.relname AS ref_table,
            con.confdeltype AS on_delete,
            ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns,
            ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS ref_columns
       FROM pg_catalog.pg_constraint con
       JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid
       JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
      WHERE con.contype = 'f' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
      ORDER BY n.nspname, c.relname, con.conname`,
  );
  return rows.map((row) => ({
    name: row.name,
    schema: row.schema,
    table: row.table,
    columns: row.columns,
    references: { schema: row.ref_schema, table: row.ref_table, columns: row.ref_columns },
    onDelete: ON_DELETE[row.on_delete] ?? 'NO ACTION',
  }));
}

/** Problems with rules (and kept tables) against the discovered schema, as zod-like issues for the form. */
export const validateRules = (
  rules: PostgresRule[],
  tables: DiscoveredTable[],
  kept: KeptTable[] = [],
): ConfigIssue[] => validateSqlRules(postgresDialect, rules, tables, kept);
