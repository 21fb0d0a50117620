import type mysql from 'mysql2/promise';
import type { OnDelete } from '@shared/integrations/foreign-keys';
import type { DiscoveredTable } from '../sql/rules';

/** The server's own databases, never a customer's data. */
const SYSTEM_DATABASES = `('information_schema', 'mysql', 'performance_schema', 'sys')`;

/**
 * Tables, columns (with their length limits, character sets and unique keys) and foreign keys of
 * every database the user can see, the server's own excepted, through information_schema (which
 * shows only what the user has privileges on). `tinyint(1)` (MySQL's BOOLEAN) is reported as
 * boolean; `foreignKeys` (composite ones in key order, each with its ON DELETE rule) and
 * `referencedBy` let rules run children first and be checked against the keys when saved.
 */
export async function discoverMysqlSchema(
  connection: mysql.Connection | mysql.PoolConnection,
  /** Only these databases (a deletion reads the ones its rules name, not the whole server). */
  databases?: string[],
): Promise<DiscoveredTable[]> {
  const where = databases ? 'IN (?)' : `NOT IN ${SYSTEM_DATABASES}`;
  const values = databases ? [databases] : [];
  const [columns] = await connection.query<mysql.RowDataPacket[]>(
    `SELECT c.TABLE_SCHEMA AS s, c.TABLE_NAME AS t, c.COLUMN_NAME AS c, c.DATA_TYPE AS type, c.COLUMN_TYPE AS full_type, c.IS_NULLABLE AS nullable,
            c.CHARACTER_MAXIMUM_LENGTH AS max_length, c.CHARACTER_SET_NAME AS charset,
            EXISTS (SELECT 1 FROM information_schema.STATISTICS s
                     WHERE s.TABLE_SCHEMA = c.TABLE_SCHEMA AND s.TABLE_NAME = c.TABLE_NAME
                       AND s.COLUMN_NAME = c.COLUMN_NAME AND s.NON_UNIQUE = 0
                       AND NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS o
                                        WHERE o.TABLE_SCHEMA = s.TABLE_SCHEMA AND o.TABLE_NAME = s.TABLE_NAME
                                          AND o.INDEX_NAME = s.INDEX_NAME AND o.COLUMN_NAME <> s.COLUMN_NAME)) AS is_unique
       FROM information_schema.COLUMNS c
       JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
      WHERE t.TABLE_TYPE = 'BASE TABLE' AND c.TABLE_SCHEMA ${where}
      ORDER BY c.TABLE_SCHEMA = DATABASE() DESC, c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`,
    values,
  );
  // One row per column of each foreign key, in key order; REFERENTIAL_CONSTRAINTS adds its ON DELETE rule.
  const [references] = await connection.query<mysql.RowDataPacket[]>(
    `SELECT k.CONSTRAINT_NAME AS name, k.TABLE_SCHEMA AS s, k.TABLE_NAME AS t, k.COLUMN_NAME AS c,
            k.REFERENCED_TABLE_SCHEMA AS rs, k.REFERENCED_TABLE_NAME AS rt, k.REFERENCED_COLUMN_NAME AS rc, r.DELETE_RULE AS on_delete
       FROM information_schema.KEY_COLUMN_USAGE k
       JOIN information_schema.REFERENTIAL_CONSTRAINTS r
         ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
      WHERE k.TABLE_SCHEMA ${where} AND k.REFERENCED_TABLE_NAME IS NOT NULL
      ORDER BY k.TABLE_SCHEMA, k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    values,
  );
  const tables = new Map<string, DiscoveredTable>();
  for (const row of columns) {
    const key = `${row.s}.${row.t}`;
    let table = tables.get(key);
    if (!table) tables.set(key, (table = { schema: row.s, table: row.t, columns: [], referencedBy: [] }));
    const dataType = String(row.full_type).toLowerCase().startsWith('tinyint(1)')
      ? 'boolean'
      : String(row.type).toLowerCase();
    table.columns.push({
      name: row.c,
      dataType,
      nullable: row.nullable === 'YES',
      // (TEXT types report their byte limit, 65535 and more: never short enough to matter here.)
      ...(row.max_length !== null ? { maxLength: Number(row.max_length) } : {}),
      ...(Number(row.is_unique) === 1 ? { unique: true } : {}),
      ...(row.charset !== null ? { charset: String(row.charset) } : {}),
    });
  }
  for (const ref of references) {
    const parent = tables.get(`${ref.rs}.${ref.rt}`);
    const child = tables.get(`${ref.s}.${ref.t}`);
    if (!parent || !child) continue;
    const keys = (child.foreignKeys ??= []);
    let key = keys.find((k) => k.name === ref.name);
    if (!key)
      keys.push(
        (key = {
          name: String(ref.name),
          columns: [],
          references: { schema: String(ref.rs), table: String(ref.rt), columns: [] },
          onDelete: String(ref.on_delete).toUpperCase() as OnDelete,
        }),
      );
    key.columns.push(String(ref.c));
    key.references.columns.push(String(ref.rc));
    const referrer = `${child.schema}.${child.table}`;
    if (!parent.referencedBy!.includes(referrer)) parent.referencedBy!.push(referrer);
  }
  return [...tables.values()];
}
