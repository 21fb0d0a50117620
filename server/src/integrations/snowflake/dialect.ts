import { SNOWFLAKE_TEXT_TYPES } from '@shared/integrations/sql-columns';
import type { SqlDialect } from '../sql/dialect';

/** Snowflake's numeric types as INFORMATION_SCHEMA.COLUMNS.DATA_TYPE names them. */
const NUMERIC = new Set(['NUMBER', 'FLOAT']);

/** A Snowflake identifier in double quotes (embedded quotes doubled): case-sensitive, as discovery shows it. */
export function quoteSnowflakeIdent(name: string): string {
  if (name.includes('\0')) throw new Error('Invalid identifier');
  return `"${name.replace(/"/g, '""')}"`;
}

/** The value's UTF-8 bytes: equal bytes mean the same text, whatever collation the column was given. */
const utf8 = (expr: string) => `TO_BINARY(${expr}, 'UTF-8')`;

/**
 * Snowflake through its SQL API: `?` bind variables, and text compared as UTF-8 bytes besides
 * `=` (a column may carry a case- or accent-insensitive collation, under which `=` alone would
 * reach look-alikes). The HMAC is built from SHA-256 as RFC 2104 does, over BINARY values, so
 * the key's padded forms arrive as bind variables and never in the statement's text.
 */
export const snowflakeDialect: SqlDialect = {
  name: 'snowflake',
  quoteIdent: quoteSnowflakeIdent,
  param: () => '?',
  exactEquals: (column, next) => `(${column} = ${next()} AND ${utf8(column)} = ${utf8(next())})`,
  asText: (column) => `TO_VARCHAR(${column})`,
  startsWith: (column, prefix) => `${utf8(`LEFT(${column}, ${prefix.length})`)} = ${utf8(`'${prefix}'`)}`,
  differsFrom: (column, value) => `${utf8(column)} <> ${utf8(`'${value}'`)}`,
  hmacSha256Hex: (column, pad) =>
    `SHA2(HEX_DECODE_BINARY(${pad('outer')}) || SHA2_BINARY(HEX_DECODE_BINARY(${pad('inner')}) || ${utf8(column)}, 256), 256)`,
  unchangedAsHashText: (column) => column,
  concat: (...parts) => parts.join(' || '),
  now: 'CURRENT_TIMESTAMP()',
  countAs: (alias) => `COUNT(*) AS "${alias}"`,
  isNumeric: (t) => NUMERIC.has(t),
  isText: (t) => SNOWFLAKE_TEXT_TYPES.has(t),
  isBoolean: (t) => t === 'BOOLEAN',
  isTimestamp: (t) => t.startsWith('TIMESTAMP'),
};
