import { MYSQL_TEXT_TYPES } from '@shared/integrations/sql-columns';
import type { SqlDialect } from '../sql/dialect';
import { charsetCanHold } from './charsets';

const NUMERIC = new Set([
  'tinyint',
  'smallint',
  'mediumint',
  'int',
  'integer',
  'bigint',
  'decimal',
  'numeric',
  'float',
  'double',
  'bit',
  'year',
]);

/** A MySQL/MariaDB identifier in backticks (embedded backticks doubled). */
export function quoteMysqlIdent(name: string): string {
  if (name.includes('\0')) throw new Error('Invalid identifier');
  return `\`${name.replace(/`/g, '``')}\``;
}

/** The value's UTF-8 bytes: compared as binary strings they match exactly (case, accents, trailing spaces). */
const utf8Bytes = (expr: string) => `CAST(CONVERT(${expr} USING utf8mb4) AS BINARY)`;

/**
 * MySQL and MariaDB. Their default collations (utf8mb4_general_ci, utf8mb4_0900_ai_ci...)
 * compare case- and accent-insensitively, and PAD SPACE ones ignore trailing spaces, so
 * `email = ?` would also match 'JANE@example.com', 'jane@exämple.com' and 'jane@example.com '.
 * An identifier matches only when the UTF-8 bytes are equal; the plain `=` before it lets the
 * column's index find the (few) candidates.
 */
export const mysqlDialect: SqlDialect = {
  name: 'mysql',
  quoteIdent: quoteMysqlIdent,
  param: () => '?',
  exactEquals: (column, next) => `(${column} = ${next()} AND ${utf8Bytes(column)} = ${utf8Bytes(next())})`,
  asText: (column) => `CONVERT(${column} USING utf8mb4)`,
  startsWith: (column, prefix) => `${utf8Bytes(column)} LIKE BINARY '${prefix}%'`,
  differsFrom: (column, value) => `${utf8Bytes(column)} <> BINARY '${value}'`,
  // HMAC as RFC 2104 builds it from SHA-256: H((K ^ opad) || H((K ^ ipad) || m)), every part as bytes (no charset conversion).
  hmacSha256Hex: (column, pad) =>
    `SHA2(CONCAT(UNHEX(${pad('outer')}), UNHEX(SHA2(CONCAT(UNHEX(${pad('inner')}), ${utf8Bytes(column)}), 256))), 256)`,
  unchangedAsHashText: (column) => `CONVERT(${column} USING utf8mb4)`,
  concat: (...parts) => `CONCAT(${parts.join(', ')})`,
  now: 'CURRENT_TIMESTAMP',
  countAs: (alias) => `COUNT(*) AS ${alias}`,
  isNumeric: (t) => NUMERIC.has(t),
  isText: (t) => MYSQL_TEXT_TYPES.has(t),
  // Discovery reports tinyint(1), MySQL's BOOLEAN, as boolean.
  isBoolean: (t) => t === 'boolean',
  isTimestamp: (t) => t === 'datetime' || t === 'timestamp',
  charsetCanHold,
  keyChainSubquery: (select) => `SELECT * FROM (${select}) AS key_chain`,
};
