import type pg from 'pg';

/** What the stand-in keeps of a dataset: where it is and its time travel option, if set. */
export interface FakeDataset {
  location: string;
  maxTimeTravelHours?: number;
}

/** A finished statement: its rows as BigQuery's REST answers carry them, their schema, and the rows DML changed. */
export interface SqlResult {
  fields: { name: string; type: string }[];
  rows: (string | null)[][];
  affectedRows?: number;
  statementType: 'SELECT' | 'UPDATE' | 'DELETE' | 'INSERT';
}

/** A GoogleSQL error as a job's errorResult carries it. */
export class JobError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** How BigQuery names the (PostgreSQL) column types of the stand-in's tables. */
function bigqueryType(dataType: string, maxLength: number | null): string {
  switch (dataType) {
    case 'text':
      return 'STRING';
    case 'character varying':
      return maxLength ? `STRING(${maxLength})` : 'STRING';
    case 'bigint':
    case 'integer':
    case 'smallint':
      return 'INT64';
    case 'numeric':
      return 'NUMERIC';
    case 'double precision':
      return 'FLOAT64';
    case 'boolean':
      return 'BOOL';
    case 'timestamp with time zone':
      return 'TIMESTAMP';
    case 'bytea':
      return 'BYTES';
    default:
      return dataType.toUpperCase();
  }
}

/** The legacy type names of a REST answer's `schema.fields`, by PostgreSQL type oid. */
const FIELD_TYPES: Record<number, string> = {
  20: 'INTEGER',
  21: 'INTEGER',
  23: 'INTEGER',
  16: 'BOOLEAN',
  701: 'FLOAT',
  1700: 'NUMERIC',
  1184: 'TIMESTAMP',
};

const PG_TYPES: Record<string, string> = {
  INT64: 'bigint',
  NUMERIC: 'numeric',
  BIGNUMERIC: 'numeric',
  FLOAT64: 'double precision',
};

/** The functions GoogleSQL has and PostgreSQL names otherwise; created once per stand-in database. */
export const GOOGLESQL_FUNCTIONS = `
  CREATE OR REPLACE FUNCTION to_hex(bytea) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT encode($1, 'hex') $$;
  CREATE OR REPLACE FUNCTION from_hex(text) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$ SELECT decode($1, 'hex') $$;
`;

/**
 * A GoogleSQL statement as PostgreSQL runs it: backtick names quoted, named parameters numbered,
 * and the few GoogleSQL forms the deletion rules use rewritten (CAST AS BYTES is the UTF-8 bytes).
 */
export function toPostgres(query: string, names: string[]): string {
  return query
    .replace(/`((?:\\.|[^`\\])*)`/g, (_, name: string) => `"${name.replace(/\\(.)/g, '$1').replace(/"/g, '""')}"`)
    .replace(/@(\w+)/g, (_, name: string) => {
      const index = names.indexOf(name);
      if (index < 0) throw new JobError('invalidQuery', `Query parameter '${name}' not found`);
      return `$${index + 1}`;
    })
    .replace(
      /SAFE_CAST\(([^()]+?) AS (INT64|NUMERIC|BIGNUMERIC|FLOAT64)\)/g,
      (_, e: string, t: string) => `CAST(${e} AS ${PG_TYPES[t]})`,
    )
    .replace(/CAST\(([^()]+?) AS BYTES\)/g, (_, e: string) => `convert_to(${e}, 'UTF8')`)
    .replace(/CAST\(([^()]+?) AS STRING\)/g, (_, e: string) => `CAST(${e} AS text)`);
}

/** The datasets (schemas) a statement reads or changes. */
export const datasetsOf = (pgQuery: string) =>
  [...pgQuery.matchAll(/"([^"]+)"\."([^"]+)"/g)].map(([, schema, table]) => ({ schema: schema!, table: table! }));

const REGION_VIEW =
  /^SELECT (.+) FROM "([^"]+)"\."region-([^"]+)"\.INFORMATION_SCHEMA\.(COLUMNS|SCHEMATA_OPTIONS)(?: WHERE (.*?))?(?: ORDER BY .*)?$/s;

/** INFORMATION_SCHEMA.COLUMNS and SCHEMATA_OPTIONS of a region, from PostgreSQL's catalog and the datasets' options. */
export async function regionView(
  pool: pg.Pool,
  datasets: Map<string, FakeDataset>,
  pgQuery: string,
  location: string,
): Promise<SqlResult | null> {
  const match = REGION_VIEW.exec(pgQuery);
  if (!match) return null;
  const [, select, , region, view] = match;
  if (region!.toLowerCase() !== location.toLowerCase())
    throw new JobError('invalidQuery', `Region region-${region} does not match the job's location ${location}`);
  const inRegion = [...datasets].filter(([, d]) => d.location.toLowerCase() === location.toLowerCase()).map(([n]) => n);
  if (view === 'COLUMNS') {
    if (select !== 'table_schema, table_name, column_name, data_type, is_nullable')
      throw new JobError('invalidQuery', 'The stand-in answers COLUMNS for the discovery query only');
    const { rows } = await pool.query(
      `SELECT table_schema, table_name, column_name, data_type, character_maximum_length, is_nullable FROM information_schema.columns
       WHERE table_schema = ANY($1) ORDER BY table_schema, table_name, ordinal_position`,
      [inRegion],
    );
    return {
      statementType: 'SELECT',
      fields: ['table_schema', 'table_name', 'column_name', 'data_type', 'is_nullable'].map((name) => ({
        name,
        type: 'STRING',
      })),
      rows: rows.map((r) => [
        r.table_schema,
        r.table_name,
        r.column_name,
        bigqueryType(r.data_type, r.character_maximum_length),
        r.is_nullable,
      ]),
    };
  }
  if (select !== 'schema_name, option_value' || match[5] !== "option_name = 'max_time_travel_hours'")
    throw new JobError('invalidQuery', 'The stand-in answers SCHEMATA_OPTIONS for max_time_travel_hours only');
  return {
    statementType: 'SELECT',
    fields: [
      { name: 'schema_name', type: 'STRING' },
      { name: 'option_value', type: 'STRING' },
    ],
    rows: inRegion.flatMap((name) => {
      const hours = datasets.get(name)!.maxTimeTravelHours;
      return hours === undefined ? [] : [[name, String(hours)]];
    }),
  };
}

/** Runs a translated statement: its rows as strings (BigQuery's JSON carries every value as a string), or the rows it changed. */
export async function runStatement(pool: pg.Pool, pgQuery: string, values: string[]): Promise<SqlResult> {
  const kind = /^\s*(\w+)/.exec(pgQuery)?.[1]?.toUpperCase();
  const statementType = kind === 'DELETE' || kind === 'UPDATE' || kind === 'INSERT' ? kind : 'SELECT';
  try {
    const result = await pool.query({ text: pgQuery, values, rowMode: 'array' });
    if (statementType !== 'SELECT') return { statementType, fields: [], rows: [], affectedRows: result.rowCount ?? 0 };
    return {
      statementType,
      fields: result.fields.map((f) => ({ name: f.name, type: FIELD_TYPES[f.dataTypeID] ?? 'STRING' })),
      rows: (result.rows as unknown[][]).map((row) =>
        row.map((v) => (v === null ? null : v instanceof Date ? String(v.getTime() / 1000) : String(v))),
      ),
    };
  } catch (error) {
    throw new JobError('invalidQuery', (error as Error).message);
  }
}

/** What a dry run reports: the bytes of every row of each table the statement names (an upper bound, as BigQuery's is). */
export async function bytesOf(pool: pg.Pool, pgQuery: string, values: string[]): Promise<number> {
  try {
    await pool.query({ text: `EXPLAIN ${pgQuery}`, values });
  } catch (error) {
    throw new JobError('invalidQuery', (error as Error).message);
  }
  let bytes = 0;
  for (const { schema, table } of datasetsOf(pgQuery)) {
    const { rows } = await pool.query(
      `SELECT coalesce(sum(pg_column_size(t.*)), 0)::bigint AS n FROM "${schema}"."${table}" t`,
    );
    bytes += Number(rows[0].n);
  }
  return bytes;
}
