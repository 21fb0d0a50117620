import { z } from 'zod';
import { sqlConfigSchema, sqlRuleSchema } from './postgres';

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
