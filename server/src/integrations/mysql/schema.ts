import type mysql from 'mysql2/promise';
import type { DiscoveredTable } from '../sql/rules';

/** The server's own databases, never a customer's data. */
const SYSTEM_DATABASES = `('information_schema', 'mysql', 'performance_schema', 'sys')`;

/**
 * Tables, columns (with their length limits, character sets and unique keys) and foreign keys of
 * every database the user can see, the server's own excepted, through information_schema (which
 * shows only what the user has privileges on). `tinyint(1)` (MySQL's BOOLEAN) is reported as
 * boolean; `referencedBy` lets rules run children first.
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
  const [references] = await connection.query<mysql.RowDataPacket[]>(
    `SELECT TABLE_SCHEMA AS s, TABLE_NAME AS t, REFERENCED_TABLE_SCHEMA AS rs, REFERENCED_TABLE_NAME AS rt
       FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA ${where} AND REFERENCED_TABLE_NAME IS NOT NULL`,
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
    const child = `${ref.s}.${ref.t}`;
    if (parent && !parent.referencedBy!.includes(child)) parent.referencedBy!.push(child);
  }
  return [...tables.values()];
}
