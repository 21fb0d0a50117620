/** What a SQL rule needs to know about one column of the customer's table. */
export interface ColumnInfo {
  dataType: string;
  nullable: boolean;
  /** Characters a text column holds at most, where the database reports it. */
  maxLength?: number;
  /** A primary key or unique index on this column alone. */
  unique?: boolean;
  /** The text column's character set, where the database reports one per column (MySQL/MariaDB). */
  charset?: string;
}
/**
 * Columns of one table by name; for a rule matched through a key chain, `anchor` holds the
 * columns of the chain's last table, where its identifier columns are.
 */
export type TableColumns = Map<string, ColumnInfo> & { anchor?: Map<string, ColumnInfo> };

export interface Statement {
  text: string;
  /** Bound parameters: never recorded (the trail keeps `text` only), so they may carry key material. */
  values: string[];
}

/**
 * The few places where SQL databases differ for deletion rules. Everything else (which rows
 * match, which are still pending, what each action writes) is built once in `rules.ts`, so a
 * rule means the same on PostgreSQL and on MySQL/MariaDB.
 */
export interface SqlDialect {
  name: 'postgres' | 'mysql' | 'snowflake' | 'bigquery';
  /** A table or column name, quoted so that it can never end the identifier. */
  quoteIdent(name: string): string;
  /** The placeholder of the n-th bound parameter (1-based). */
  param(n: number): string;
  /**
   * `column = identifier` (`next()` binds the identifier once more), matching exactly: same bytes, same case, same accents, trailing
   * spaces significant, whatever the column's collation.
   */
  exactEquals(column: string, next: () => string): string;
  /** The column's value as text, for prefix checks of hashed and masked values. */
  asText(column: string): string;
  /** `column` starts with `prefix`, case-sensitively. */
  startsWith(column: string, prefix: string): string;
  /** `column` differs from `literal`, case-sensitively. */
  differsFrom(column: string, literal: string): string;
  /**
   * The HMAC-SHA256 of the column's UTF-8 text, lower-case hex, from the key's two padded forms:
   * `pad` binds one (as hex text) and gives its placeholder, so the key is never in the SQL. It is
   * called in the order the placeholders appear (MySQL's `?` are positional).
   */
  hmacSha256Hex(column: string, pad: (which: 'inner' | 'outer') => string): string;
  /**
   * The column's value unchanged, in the character set of the hash written beside it in one
   * CASE (MySQL refuses to mix a latin1 column with the utf8mb4 hash there).
   */
  unchangedAsHashText(column: string): string;
  /** Concatenation of SQL expressions. */
  concat(...parts: string[]): string;
  /** The current time, for timestamp soft deletes. */
  now: string;
  /** The row count as an integer column `n`. */
  countAs(alias: string): string;
  /** Column types that hold numbers (an identifier that is not a number can never equal them). */
  isNumeric(dataType: string): boolean;
  isText(dataType: string): boolean;
  isBoolean(dataType: string): boolean;
  isTimestamp(dataType: string): boolean;
  /**
   * The subquery of a key chain as the rule's statement may read it: MySQL refuses a subquery
   * on the table a DELETE or UPDATE changes (a self-reference) unless it is materialized first.
   */
  keyChainSubquery?(select: string): string;
  /**
   * The bound identifier as a value of a number column's type, for databases that never convert a
   * text parameter to a number themselves (BigQuery); absent: the parameter as it is.
   */
  asNumber?(placeholder: string, dataType: string): string;
  /** Whether a column of this character set can hold the value at all (databases with a character set per column). */
  charsetCanHold?(charset: string, value: string): boolean;
}

/** A string literal with quotes doubled; only for the constants of this module, never for user data. */
export const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;
