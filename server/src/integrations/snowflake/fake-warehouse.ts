import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The SQL side of the Snowflake fake: a real PostgreSQL database named as the Snowflake
 * database, with what Snowflake has and PostgreSQL lacks under Snowflake's own names: the
 * INFORMATION_SCHEMA views (upper-case columns, Snowflake's type names, RETENTION_TIME and
 * IS_TRANSIENT) and the functions the deletion statements call (TO_BINARY, HEX_DECODE_BINARY,
 * SHA2, SHA2_BINARY), each computing what Snowflake documents it to compute.
 */
const SETUP = (warehouse: string) => `
CREATE SCHEMA fake_settings;
CREATE TABLE fake_settings.retention (schema_name text, table_name text, days int NOT NULL, transient boolean NOT NULL DEFAULT false, PRIMARY KEY (schema_name, table_name));
CREATE FUNCTION to_binary(text, text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT
  AS $$ SELECT CASE WHEN upper($2) IN ('UTF-8', 'UTF8') THEN convert_to($1, 'UTF8') END $$;
CREATE FUNCTION hex_decode_binary(text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT decode($1, 'hex') $$;
CREATE FUNCTION sha2_binary(bytea, int) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT
  AS $$ SELECT CASE WHEN $2 = 256 THEN sha256($1) END $$;
CREATE FUNCTION sha2(bytea, int) RETURNS text LANGUAGE sql IMMUTABLE STRICT
  AS $$ SELECT CASE WHEN $2 = 256 THEN encode(sha256($1), 'hex') END $$;
CREATE FUNCTION current_version() RETURNS text LANGUAGE sql AS $$ SELECT '9.38.1' $$;
CREATE FUNCTION current_warehouse() RETURNS text LANGUAGE sql AS $$ SELECT '${warehouse.replace(/'/g, "''")}'::text $$;
CREATE SCHEMA "INFORMATION_SCHEMA";
CREATE VIEW "INFORMATION_SCHEMA"."TABLES" AS
  SELECT t.table_schema::text AS "TABLE_SCHEMA", t.table_name::text AS "TABLE_NAME", t.table_type::text AS "TABLE_TYPE",
         COALESCE(r.days, 1) AS "RETENTION_TIME", CASE WHEN r.transient THEN 'YES' ELSE 'NO' END AS "IS_TRANSIENT"
    FROM information_schema.tables t
    LEFT JOIN fake_settings.retention r ON r.schema_name = t.table_schema AND r.table_name = t.table_name
   WHERE t.table_schema NOT IN ('pg_catalog', 'information_schema', 'fake_settings', 'public')
  UNION ALL
  SELECT 'INFORMATION_SCHEMA', v, 'VIEW', 0, 'NO' FROM unnest(ARRAY['TABLES', 'COLUMNS']) AS v;
CREATE VIEW "INFORMATION_SCHEMA"."COLUMNS" AS
  SELECT c.table_schema::text AS "TABLE_SCHEMA", c.table_name::text AS "TABLE_NAME", c.column_name::text AS "COLUMN_NAME",
         c.ordinal_position::int AS "ORDINAL_POSITION",
         CASE WHEN c.data_type IN ('text', 'character varying', 'character') THEN 'TEXT'
              WHEN c.data_type IN ('smallint', 'integer', 'bigint', 'numeric') THEN 'NUMBER'
              WHEN c.data_type IN ('real', 'double precision') THEN 'FLOAT'
              WHEN c.data_type = 'boolean' THEN 'BOOLEAN'
              WHEN c.data_type = 'timestamp without time zone' THEN 'TIMESTAMP_NTZ'
              WHEN c.data_type = 'timestamp with time zone' THEN 'TIMESTAMP_TZ'
              ELSE upper(c.data_type) END AS "DATA_TYPE",
         c.is_nullable::text AS "IS_NULLABLE",
         CASE WHEN c.data_type IN ('text', 'character varying', 'character')
              THEN COALESCE(c.character_maximum_length, 16777216) END AS "CHARACTER_MAXIMUM_LENGTH"
    FROM information_schema.columns c
   WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema', 'fake_settings', 'public', 'INFORMATION_SCHEMA');
`;

/** A Snowflake database played by a fresh PostgreSQL database of the same name. */
export async function createFakeWarehouse(adminDatabaseUrl: string, warehouse: string) {
  const database = `SF_${randomBytes(5).toString('hex').toUpperCase()}`;
  const admin = new pg.Client({ connectionString: adminDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();
  const url = new URL(adminDatabaseUrl);
  url.pathname = `/${database}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => {});
  await pool.query(SETUP(warehouse));
  return {
    database,
    pool,
    /** Sets a table's Time Travel period (DATA_RETENTION_TIME_IN_DAYS), and whether it is transient (no Fail-safe). */
    async setRetention(schema: string, table: string, days: number, transient = false) {
      await pool.query(
        `INSERT INTO fake_settings.retention VALUES ($1, $2, $3, $4)
         ON CONFLICT (schema_name, table_name) DO UPDATE SET days = EXCLUDED.days, transient = EXCLUDED.transient`,
        [schema, table, days, transient],
      );
    },
    async close() {
      await pool.end();
      const cleanup = new pg.Client({ connectionString: adminDatabaseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/**
 * Snowflake's `?` bind variables as PostgreSQL's `$n`, outside string literals and quoted
 * identifiers; the number of placeholders, to check against the bindings sent.
 */
export function positionalParameters(statement: string): { text: string; count: number } {
  let count = 0;
  let text = '';
  let quote: string | null = null;
  for (const char of statement) {
    if (quote) {
      if (char === quote) quote = null;
      text += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      text += char;
    } else if (char === '?') text += `$${++count}`;
    else text += char;
  }
  return { text, count };
}
