import { z } from 'zod';
import { defineConnector } from './connector';

const ident = z
  .string()
  .trim()
  .min(1, 'Required')
  .max(63, 'PostgreSQL names are at most 63 characters')
  .refine((v) => !/[\u0000]/.test(v), 'Invalid name');

/** Most foreign keys a rule's rows may be reached through. */
export const MAX_KEY_CHAIN = 6;

export const POSTGRES_ACTIONS = ['delete', 'set_null', 'hash', 'mask', 'soft_delete'] as const;

/**
 * One link of a key chain: this table's `columns` hold the values of `references.columns` in
 * the next table (a foreign key, named in `foreignKey` when it is one).
 */
const keyStepSchema = <S extends z.ZodType<string, any>>(schema: S) =>
  z
    .object({
      foreignKey: z.string().max(128).optional(),
      columns: z.array(ident).min(1).max(16),
      references: z.object({ schema, table: ident, columns: z.array(ident).min(1).max(16) }),
    })
    .refine((s) => s.columns.length === s.references.columns.length, {
      message: 'A key links as many columns on each side',
      path: ['columns'],
    });

/** A rule on one SQL table; `schema` is where the dialects differ (PostgreSQL schema, MySQL database, BigQuery dataset). */
export const sqlRuleSchema = <S extends z.ZodType<string, any>>(schema: S) =>
  z
    .object({
      schema,
      table: ident,
      /**
       * Rows reached through keys (order_items → orders → users): the rule's rows are those whose
       * key chain leads to a row of the last table whose identifier columns match. Empty: the
       * identifier columns are the rule's table's own.
       */
      via: z.array(keyStepSchema(schema)).max(MAX_KEY_CHAIN).optional(),
      /** Columns compared with the request identifier (on the last table of `via`, when given). */
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

const postgresSchemaName = ident.default('public');
/** MySQL/MariaDB: `schema` is a database; empty means the account's own database. */
const mysqlDatabaseName = z
  .string()
  .trim()
  .max(64, 'MySQL names are at most 64 characters')
  .refine((v) => !/[\u0000]/.test(v), 'Invalid name')
  .default('');
export const postgresRuleSchema = sqlRuleSchema(postgresSchemaName);
export const mysqlRuleSchema = sqlRuleSchema(mysqlDatabaseName);
export type PostgresRule = z.infer<typeof postgresRuleSchema>;
/** A link of a rule's key chain. */
export type KeyStep = NonNullable<PostgresRule['via']>[number];

/** A table that references a rule's table and is deliberately left as it is, with the reason written down. */
const keptTableSchema = <S extends z.ZodType<string, any>>(schema: S) =>
  z.object({
    schema,
    table: ident,
    reason: z.string().trim().min(1, 'Write down why the rows are kept').max(500),
  });

export const sqlConfigSchema = <R extends z.ZodType<PostgresRule, any>, S extends z.ZodType<string, any>>(
  rule: R,
  schema: S,
) =>
  z.object({
    /** Executed in one transaction, tables that reference others (orders) before the tables they reference (users). */
    rules: z.array(rule).min(1, 'Add at least one rule').max(50),
    /** Tables referencing a rule's table that keep their rows (legal hold, anonymous aggregates): documented, not changed. */
    keep: z.array(keptTableSchema(schema)).max(50).optional(),
    statementTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Optional daily window (UTC hours) in which deletions run; outside it requests wait as PENDING. */
    maintenanceWindow: z
      .object({ startHourUtc: z.number().int().min(0).max(23), endHourUtc: z.number().int().min(0).max(24) })
      .refine((w) => w.startHourUtc !== w.endHourUtc, 'Start and end must differ')
      .optional(),
  });

export const postgresConfigSchema = sqlConfigSchema(postgresRuleSchema, postgresSchemaName);
/** MySQL and MariaDB: the same rules; like PostgreSQL's, they run in foreign-key order (children first) in one transaction. */
export const mysqlConfigSchema = sqlConfigSchema(mysqlRuleSchema, mysqlDatabaseName);
export type MysqlConfig = z.infer<typeof mysqlConfigSchema>;
export type PostgresConfig = z.infer<typeof postgresConfigSchema>;

export { HASH_PREFIX, LEGACY_HASH_PREFIX, MASK_VALUE } from './sql-columns';

export const postgresConnector = defineConnector({
  type: 'POSTGRES',
  label: 'PostgreSQL',
  accountTypes: ['DATABASE'],
  accountRequired: true,
  configSchema: postgresConfigSchema,
  catalogue: {
    category: 'Database',
    deletes: 'rows matched by your rules (delete, null, hash, mask, soft delete)',
    credentials: 'host, database, user, password',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'sync, or in a maintenance window (cancel before it runs); every rule is verified after commit',
    completion: 'seconds',
    docsUrl: 'https://www.postgresql.org/docs/current/sql-delete.html',
  },
});

export const mysqlConnector = defineConnector({
  type: 'MYSQL',
  label: 'MySQL / MariaDB',
  accountTypes: ['DATABASE'],
  accountRequired: true,
  configSchema: mysqlConfigSchema,
  catalogue: {
    category: 'Database',
    deletes:
      'rows matched by the same rules as PostgreSQL; identifiers match exactly (case, accents, trailing spaces) despite case-insensitive collations',
    credentials: 'host, port (3306), database, user, password',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'one transaction, child tables first (from the foreign keys); a failing rule rolls all back; rows still matching are counted after commit',
    completion: 'seconds',
    docsUrl: 'https://mariadb.com/kb/en/delete/',
  },
});
