import { z } from 'zod';

const ident = z
  .string()
  .trim()
  .min(1, 'Required')
  .max(63, 'PostgreSQL names are at most 63 characters')
  .refine((v) => !/[\u0000]/.test(v), 'Invalid name');

export const POSTGRES_ACTIONS = ['delete', 'set_null', 'hash', 'mask', 'soft_delete'] as const;

/** A rule on one SQL table; `schema` is where the dialects differ (PostgreSQL schema, MySQL database). */
const sqlRuleSchema = <S extends z.ZodType<string, any>>(schema: S) =>
  z
    .object({
      schema,
      table: ident,
      /** Columns compared with the request identifier. */
      identifierColumns: z.array(ident).min(1, 'Pick at least one identifier column').max(10),
      match: z.enum(['any', 'all']).default('any'),
      action: z.enum(POSTGRES_ACTIONS),
      /** Columns changed by set_null, hash and mask. */
      columns: z.array(ident).max(50).default([]),
      /** soft_delete: the flag (boolean) or timestamp column to set. */
      softDeleteColumn: ident.optional(),
    })
    .superRefine((rule, ctx) => {
      if (['set_null', 'hash', 'mask'].includes(rule.action) && rule.columns.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['columns'],
          message: `Pick the columns to ${rule.action.replace('_', ' ')}`,
        });
      }
      if (rule.action === 'soft_delete' && !rule.softDeleteColumn) {
        ctx.addIssue({ code: 'custom', path: ['softDeleteColumn'], message: 'Pick the flag or timestamp column' });
      }
    });

export const postgresRuleSchema = sqlRuleSchema(ident.default('public'));
/** MySQL/MariaDB: `schema` is a database; empty means the account's own database. */
export const mysqlRuleSchema = sqlRuleSchema(
  z
    .string()
    .trim()
    .max(64, 'MySQL names are at most 64 characters')
    .refine((v) => !/[\u0000]/.test(v), 'Invalid name')
    .default(''),
);
export type PostgresRule = z.infer<typeof postgresRuleSchema>;

const sqlConfigSchema = <R extends z.ZodType<PostgresRule, any>>(rule: R) =>
  z.object({
    /** Executed in order, in one transaction: put child tables (orders) before parents (users). */
    rules: z.array(rule).min(1, 'Add at least one rule').max(50),
    statementTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Optional daily window (UTC hours) in which deletions run; outside it requests wait as PENDING. */
    maintenanceWindow: z
      .object({ startHourUtc: z.number().int().min(0).max(23), endHourUtc: z.number().int().min(0).max(24) })
      .refine((w) => w.startHourUtc !== w.endHourUtc, 'Start and end must differ')
      .optional(),
  });

export const postgresConfigSchema = sqlConfigSchema(postgresRuleSchema);
/** MySQL and MariaDB: the same rules; rules run in foreign-key order (children first) in one transaction. */
export const mysqlConfigSchema = sqlConfigSchema(mysqlRuleSchema);
export type MysqlConfig = z.infer<typeof mysqlConfigSchema>;
export type PostgresConfig = z.infer<typeof postgresConfigSchema>;

export { HASH_PREFIX, LEGACY_HASH_PREFIX, MASK_VALUE } from './sql-columns';
