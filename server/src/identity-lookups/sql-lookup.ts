import type mysql from 'mysql2/promise';
import type pg from 'pg';
import { classifyDatabaseError } from '../integrations/postgres/driver';
import { withSession } from '../integrations/postgres/sessions';
import { classifyMysqlError } from '../integrations/mysql/errors';
import { withMysqlConnection } from '../integrations/mysql/sessions';
import { secretValues } from '../integrations/runtime/redaction';
import { TransientError } from '../integrations/types';
import { LookupError } from './errors';
import { identifierCollector, lookupRedactor } from './found-identifiers';
import type { FoundIdentifier, IdentityLookupConfig } from './lookup-config';
import { prepareSelect, type PreparedSelect } from './sql-guard';

type SqlLookupConfig = Extract<IdentityLookupConfig, { kind: 'sql' }>;

export interface SqlLookupEnv {
  secrets?: Record<string, unknown> | null;
  resolveHost?: (host: string) => Promise<string>;
}

interface QueryResult {
  columns: string[];
  rows: Record<string, unknown>[];
}

/** Runs `query` once per parameter list inside one read-only transaction with the statement timeout. */
type Executor = (text: string, runs: string[][]) => Promise<QueryResult[]>;

// PostgreSQL: query_canceled (statement_timeout). MariaDB: max_statement_time; MySQL: max_execution_time.
const TIMEOUT_CODES = new Set(['57014', 'ER_STATEMENT_TIMEOUT', 'ER_QUERY_TIMEOUT']);
const TIMEOUT_ERRNOS = new Set([1969, 3024]);

/**
 * The parameter lists to run the query with, or null when a placeholder's type has no known
 * value (the lookup has nothing to look with). A type with several values: the query runs
 * once per value of the first placeholder's type; every other placeholder takes its type's
 * first value.
 */
export function plannedRuns(prepared: PreparedSelect, known: readonly FoundIdentifier[]): string[][] | null {
  const valuesOf = (type: string) => [...new Set(known.filter((k) => k.type === type).map((k) => k.value))];
  if (prepared.placeholderTypes.some((type) => valuesOf(type).length === 0)) return null;
  const lead = prepared.placeholderTypes[0]!;
  return valuesOf(lead).map((value) =>
    prepared.parameterTypes.map((type) => (type === lead ? value : valuesOf(type)[0]!)),
  );
}

/** At most `maxRows` + 1 rows, whatever the query: one more than allowed says it matched too many. */
const capped = (text: string, maxRows: number) => `SELECT * FROM (${text}) AS identity_lookup LIMIT ${maxRows + 1}`;

function postgresExecutor(config: SqlLookupConfig, env: Required<SqlLookupEnv>): Executor {
  return (text, runs) =>
    withSession(
      env,
      config.timeoutMs,
      (error) => error as Error,
      async ({ client }) => {
        await client.query('BEGIN READ ONLY');
        await client.query(`SET LOCAL statement_timeout = ${Math.round(config.timeoutMs)}`);
        const results: QueryResult[] = [];
        for (const values of runs) {
          const result: pg.QueryResult = await client.query({ text, values });
          results.push({ columns: result.fields.map((f) => f.name), rows: result.rows });
        }
        await client.query('ROLLBACK');
        return results;
      },
    );
}

function mysqlExecutor(config: SqlLookupConfig, env: Required<SqlLookupEnv>): Executor {
  // withMysqlConnection sets the server's statement timeout for the session (MariaDB or MySQL flavour).
  return (text, runs) =>
    withMysqlConnection(env, config.timeoutMs, async (connection) => {
      await connection.query('START TRANSACTION READ ONLY');
      const results: QueryResult[] = [];
      for (const values of runs) {
        const [rows, fields] = await connection.execute<mysql.RowDataPacket[]>(text, values);
        results.push({ columns: fields.map((f) => f.name), rows });
      }
      await connection.query('ROLLBACK');
      return results;
    });
}

/** A database error as a LookupError: timeouts said plainly, values and secrets blanked out. */
function lookupFailure(error: unknown, config: SqlLookupConfig, redact: (text: string) => string): LookupError {
  if (error instanceof LookupError) return error;
  const e = error as { code?: string; errno?: number };
  if ((e.code && TIMEOUT_CODES.has(e.code)) || (e.errno && TIMEOUT_ERRNOS.has(e.errno)))
    return new LookupError(`SQL lookup: the query did not finish within ${config.timeoutMs} ms`, { transient: true });
  // PostgreSQL's data exceptions quote the value that did not fit (a known identifier or anyone's row): fixed words instead.
  if (config.dialect === 'postgres' && e.code && /^22/.test(e.code))
    return new LookupError(`SQL lookup: a value does not fit the type it is compared with or cast to (${e.code})`, {
      transient: false,
    });
  const classified = config.dialect === 'postgres' ? classifyDatabaseError(error) : classifyMysqlError(error);
  return new LookupError(`SQL lookup: ${redact(classified.message)}`, {
    transient: classified instanceof TransientError,
  });
}

function rowValue(value: unknown, column: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  throw new LookupError(`SQL lookup: the column ${column} is neither text nor a number`, { transient: false });
}

/**
 * Runs a SQL lookup: the configured SELECT, checked again, with the known identifiers bound
 * as parameters, in a read-only transaction under the statement timeout; the mapped columns
 * of at most `maxRows` rows become identifiers.
 */
export async function runSqlLookup(
  config: SqlLookupConfig,
  known: readonly FoundIdentifier[],
  env: SqlLookupEnv,
): Promise<FoundIdentifier[]> {
  let prepared: PreparedSelect;
  try {
    prepared = prepareSelect(config.query, config.dialect, null);
  } catch (error) {
    throw new LookupError(`SQL lookup: ${(error as Error).message}`, { transient: false });
  }
  const runs = plannedRuns(prepared, known);
  if (!runs || runs.length === 0) return [];
  if (!env.secrets || !env.resolveHost)
    throw new LookupError('SQL lookup: the lookup needs a database account', { transient: false });
  const ready = { secrets: env.secrets, resolveHost: env.resolveHost };
  const execute = config.dialect === 'postgres' ? postgresExecutor(config, ready) : mysqlExecutor(config, ready);
  const redact = lookupRedactor(known, secretValues('DATABASE', env.secrets));
  let results: QueryResult[];
  try {
    results = await execute(capped(prepared.text, config.maxRows), runs);
  } catch (error) {
    throw lookupFailure(error, config, redact);
  }
  const collector = identifierCollector(known);
  for (const { columns, rows } of results) {
    if (rows.length > config.maxRows)
      throw new LookupError(
        `SQL lookup: more than ${config.maxRows} ${config.maxRows === 1 ? 'row' : 'rows'}: refine the query`,
        { transient: false },
      );
    for (const column of Object.keys(config.columns))
      if (!columns.includes(column))
        throw new LookupError(`SQL lookup: the query returns no column ${column}`, { transient: false });
    for (const row of rows)
      for (const [column, type] of Object.entries(config.columns)) {
        const value = rowValue(row[column], column);
        if (value !== null) collector.add(type, value, `SQL lookup: the column ${column}`);
      }
  }
  return collector.found;
}
