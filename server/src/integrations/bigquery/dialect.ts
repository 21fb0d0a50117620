import { BIGQUERY_TEXT_TYPES } from '@shared/integrations/sql-columns';
import type { SqlDialect } from '../sql/dialect';

/** GoogleSQL's number types, as discovery reports them (a parameterised NUMERIC(10, 2) without its parameters). */
const NUMERIC = new Set(['INT64', 'NUMERIC', 'BIGNUMERIC', 'FLOAT64']);

/**
 * A GoogleSQL quoted identifier: in backticks, with a backtick or a backslash escaped by a
 * backslash (quoted identifiers take the escape sequences of string literals).
 */
export function quoteBigqueryIdent(name: string): string {
  if (name.includes('\0')) throw new Error('Invalid identifier');
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/** The value's UTF-8 bytes: compared as BYTES, values match exactly whatever the column's collation. */
const utf8Bytes = (expr: string) => `CAST(${expr} AS BYTES)`;

/**
 * BigQuery's GoogleSQL, with named parameters (`@p1`). STRING comparison is by bytes unless a
 * column has a collation (`und:ci` compares case-insensitively), so an identifier matches only
 * where the UTF-8 bytes are equal as well; a number column compares with the identifier read as
 * its own type (SAFE_CAST gives NULL, which matches nothing, for a value the type cannot hold).
 */
export const bigqueryDialect: SqlDialect = {
  name: 'bigquery',
  quoteIdent: quoteBigqueryIdent,
  param: (n) => `@p${n}`,
  exactEquals: (column, next) => `(${column} = ${next()} AND ${utf8Bytes(column)} = ${utf8Bytes(next())})`,
  asText: (column) => `CAST(${column} AS STRING)`,
  startsWith: (column, prefix) => `STARTS_WITH(${column}, '${prefix}')`,
  differsFrom: (column, value) => `${utf8Bytes(column)} <> ${utf8Bytes(`'${value}'`)}`,
  // HMAC as RFC 2104 builds it from SHA-256: H((K ^ opad) || H((K ^ ipad) || m)), every part BYTES.
  hmacSha256Hex: (column, pad) =>
    `TO_HEX(SHA256(FROM_HEX(${pad('outer')}) || SHA256(FROM_HEX(${pad('inner')}) || ${utf8Bytes(column)})))`,
  unchangedAsHashText: (column) => column,
  concat: (...parts) => `CONCAT(${parts.join(', ')})`,
  now: 'CURRENT_TIMESTAMP',
  countAs: (alias) => `COUNT(*) AS ${alias}`,
  isNumeric: (t) => NUMERIC.has(t),
  isText: (t) => BIGQUERY_TEXT_TYPES.has(t),
  isBoolean: (t) => t === 'BOOL',
  isTimestamp: (t) => t === 'TIMESTAMP',
  asNumber: (placeholder, dataType) => `SAFE_CAST(${placeholder} AS ${dataType})`,
};
