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

/** Snowflake reports every character type (VARCHAR, CHAR, STRING, TEXT) as TEXT in INFORMATION_SCHEMA.COLUMNS. */
export const SNOWFLAKE_TEXT_TYPES: ReadonlySet<string> = new Set(['TEXT']);

/** BigQuery (GoogleSQL): discovery reports a STRING(L) column as STRING with its length apart. */
export const BIGQUERY_TEXT_TYPES: ReadonlySet<string> = new Set(['STRING']);

/** Hash and mask need text: a text type of any dialect. */
export const isTextColumnType = (dataType: string): boolean =>
  POSTGRES_TEXT_TYPES.has(dataType) ||
  MYSQL_TEXT_TYPES.has(dataType) ||
  SNOWFLAKE_TEXT_TYPES.has(dataType) ||
  BIGQUERY_TEXT_TYPES.has(dataType);

/** Soft delete sets a boolean flag to true or a timestamp to now(): PostgreSQL's timestamps, MySQL's datetime and timestamp, BigQuery's BOOL and TIMESTAMP. */
export const isSoftDeleteColumnType = (dataType: string): boolean =>
  dataType === 'boolean' ||
  dataType.startsWith('timestamp') ||
  dataType === 'datetime' ||
  dataType === 'BOOL' ||
  dataType === 'TIMESTAMP';

/**
 * What the hash action writes: this prefix and the HMAC-SHA256 of the value, in hex, keyed with
 * the integration's own secret. Short, so that it fits every column the unkeyed form fitted.
 */
export const HASH_PREFIX = 'hmac:';
/** What the hash action wrote before it was keyed (the value's plain SHA-256): still counts as hashed. */
export const LEGACY_HASH_PREFIX = 'sha256:';
/** Integration types whose rules can hash (the SQL stores): each integration of them has its own hash key. */
const KEYED_HASH_TYPES: ReadonlySet<string> = new Set(['POSTGRES', 'MYSQL', 'SNOWFLAKE', 'BIGQUERY']);
export const usesHashKey = (integrationType: string): boolean => KEYED_HASH_TYPES.has(integrationType);

/** What the mask action writes. */
export const MASK_VALUE = '[masked]';
const HASHED_LENGTH = HASH_PREFIX.length + 64;

/**
 * Why hash or mask cannot write this (text) column, or null: the value does not fit its length,
 * or masking, which gives every row the same value, would break its unique key. For the
 * server's save-time check and the dashboard's rule builder alike.
 */
export function hashOrMaskProblem(
  action: 'hash' | 'mask',
  column: { name: string; maxLength?: number; unique?: boolean },
): string | null {
  const written = action === 'hash' ? HASHED_LENGTH : MASK_VALUE.length;
  if (column.maxLength !== undefined && column.maxLength < written)
    return `Column ${column.name} holds at most ${column.maxLength} characters; ${action === 'hash' ? `a hash (${HASH_PREFIX}…)` : `the mask ${MASK_VALUE}`} needs ${written}`;
  if (action === 'mask' && column.unique)
    return `Column ${column.name} is a primary key or has a unique index of its own, and masking gives every row the same value; hash it instead`;
  return null;
}
