import type { SqlRule } from '../sql/rules';
import type { DiscoveredTable } from '../types';
import type { snowflakeClient } from './client';

/** What Snowflake keeps of a permanent table after its Time Travel period, fixed by Snowflake. */
export const FAIL_SAFE_DAYS = 7;

/** Tables and columns of the database, with each table's Time Travel period and whether it is transient. */
export interface SnowflakeSchema {
  tables: DiscoveredTable[];
  /** `schema.table` → Time Travel retention in days and whether Fail-safe applies (permanent tables only). */
  retention: Map<string, { days: number; failSafe: boolean }>;
}

/**
 * Columns of the database's base tables (INFORMATION_SCHEMA.COLUMNS), with their table's
 * RETENTION_TIME and IS_TRANSIENT (INFORMATION_SCHEMA.TABLES), in the database the account
 * names; only `schemas` when given. Snowflake does not enforce foreign keys, so none are read.
 */
export async function discoverSnowflakeSchema(
  client: ReturnType<typeof snowflakeClient>,
  timeoutMs: number,
  schemas?: string[],
): Promise<SnowflakeSchema> {
  const only = schemas ? ` AND c."TABLE_SCHEMA" IN (${schemas.map(() => '?').join(', ')})` : '';
  const result = await client.execute(
    {
      text: `SELECT c."TABLE_SCHEMA", c."TABLE_NAME", c."COLUMN_NAME", c."DATA_TYPE", c."IS_NULLABLE", c."CHARACTER_MAXIMUM_LENGTH", t."RETENTION_TIME", t."IS_TRANSIENT"
  FROM "INFORMATION_SCHEMA"."COLUMNS" c
  JOIN "INFORMATION_SCHEMA"."TABLES" t ON t."TABLE_SCHEMA" = c."TABLE_SCHEMA" AND t."TABLE_NAME" = c."TABLE_NAME"
 WHERE t."TABLE_TYPE" = 'BASE TABLE' AND c."TABLE_SCHEMA" <> 'INFORMATION_SCHEMA'${only}
 ORDER BY c."TABLE_SCHEMA", c."TABLE_NAME", c."ORDINAL_POSITION"`,
      values: schemas ?? [],
    },
    timeoutMs,
  );
  const tables = new Map<string, DiscoveredTable>();
  const retention: SnowflakeSchema['retention'] = new Map();
  for (const [schema, table, column, dataType, nullable, maxLength, days, transient] of result.rows) {
    const key = `${schema}.${table}`;
    let entry = tables.get(key);
    if (!entry) {
      tables.set(key, (entry = { schema: String(schema), table: String(table), columns: [] }));
      retention.set(key, { days: Number(days ?? 0), failSafe: transient !== 'YES' });
    }
    entry.columns.push({
      name: String(column),
      dataType: String(dataType),
      nullable: nullable === 'YES',
      ...(maxLength !== null && maxLength !== undefined ? { maxLength: Number(maxLength) } : {}),
    });
  }
  return { tables: [...tables.values()], retention };
}

/**
 * What Snowflake still keeps after the rules ran: deleted rows and overwritten values stay
 * recoverable for the Time Travel period of their table, then (permanent tables) 7 days of
 * Fail-safe. Per table, and the longest, stated in words for the outcome and the certificate.
 */
export function timeTravelNotice(schema: SnowflakeSchema, rules: Pick<SqlRule, 'schema' | 'table'>[]) {
  const tables = [...new Set(rules.map((r) => `${r.schema}.${r.table}`))];
  const retentionDays: Record<string, number> = {};
  let longest = { table: tables[0] ?? '', days: 0, failSafe: false };
  for (const table of tables) {
    const { days, failSafe } = schema.retention.get(table) ?? { days: 0, failSafe: true };
    retentionDays[table] = days;
    const total = days + (failSafe ? FAIL_SAFE_DAYS : 0);
    if (total > longest.days + (longest.failSafe ? FAIL_SAFE_DAYS : 0)) longest = { table, days, failSafe };
  }
  const failSafeDays = longest.failSafe ? FAIL_SAFE_DAYS : 0;
  const notice =
    `Snowflake keeps the deleted rows and overwritten values recoverable through Time Travel for up to ${longest.days} day(s) ` +
    `(longest: ${longest.table})` +
    (failSafeDays ? `, then in Fail-safe for ${failSafeDays} more days (recoverable by Snowflake only)` : '') +
    `; after ${longest.days + failSafeDays} day(s) nothing of them remains.`;
  return { retentionDays, longestDays: longest.days, failSafeDays, notice };
}
