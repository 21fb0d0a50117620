/**
 * Which discovered column types the SQL rules may change, per dialect: one list for the
 * server's dialects (`server/src/integrations/postgres/sql.ts`, `mysql/dialect.ts`) and the
 * dashboard's rule builder. Plain values, no zod (the dashboard's first bundle stays small).
 */
export const POSTGRES_TEXT_TYPES: ReadonlySet<string> = new Set(['text', 'character varying', 'character', 'citext']);
export const MYSQL_TEXT_TYPES: ReadonlySet<string> = new Set([
  'char',
  'varchar',
  'tinytext',
  'text',
  'mediumtext',
  'longtext',
]);

/** Hash and mask need text: a text type of either dialect. */
export const isTextColumnType = (dataType: string): boolean =>
  POSTGRES_TEXT_TYPES.has(dataType) || MYSQL_TEXT_TYPES.has(dataType);

/** Soft delete sets a boolean flag to true or a timestamp to now(): PostgreSQL's timestamps, MySQL's datetime and timestamp. */
export const isSoftDeleteColumnType = (dataType: string): boolean =>
  dataType === 'boolean' || dataType.startsWith('timestamp') || dataType === 'datetime';
