import { z } from 'zod';
import { sqlConfigSchema, sqlRuleSchema } from './postgres';
import { defineConnector } from './connector';

/**
 * A Snowflake schema of the account's database. Rules name it as discovery shows it: names are
 * quoted in every statement, so `PUBLIC` and `public` are different schemas, as in Snowflake.
 */
const snowflakeSchemaName = z
  .string()
  .trim()
  .min(1, 'Required')
  .max(255, 'Snowflake names are at most 255 characters')
  .refine((v) => !/[\u0000]/.test(v), 'Invalid name')
  .default('PUBLIC');

export const snowflakeRuleSchema = sqlRuleSchema(snowflakeSchemaName).refine((rule) => rule.action !== 'soft_delete', {
  message: 'Snowflake rules delete, set to NULL, hash or mask; soft delete is not offered for Snowflake',
  path: ['action'],
});

/**
 * The SQL rules of PostgreSQL and MySQL over Snowflake's SQL API: same tables, identifier
 * columns and actions (soft delete aside).
 */
export const snowflakeConfigSchema = sqlConfigSchema(snowflakeRuleSchema, snowflakeSchemaName);
export type SnowflakeConfig = z.infer<typeof snowflakeConfigSchema>;

export const snowflakeConnector = defineConnector({
  type: 'SNOWFLAKE',
  label: 'Snowflake',
  // Key-pair authentication to the SQL API: account identifier, user, private key, warehouse, database, role.
  accountTypes: ['SNOWFLAKE'],
  accountRequired: true,
  configSchema: snowflakeConfigSchema,
  catalogue: {
    category: 'Database',
    deletes:
      'rows matched by the same rules as PostgreSQL (delete, set to NULL, keyed hash, mask); identifiers match exactly',
    credentials: 'account identifier, user, private key (key-pair JWT), warehouse, database, role',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'SQL API v2 with bind variables, polled while running and cancelled on timeout; rows still matching are counted after the statements; deleted and overwritten values stay in Time Travel and Fail-safe for the period read from the warehouse, which the outcome states',
    completion: 'seconds to minutes',
    docsUrl: 'https://docs.snowflake.com/en/developer-guide/sql-api/index',
  },
});
