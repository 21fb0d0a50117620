import { z } from 'zod';

const ident = z
  .string()
  .trim()
  .min(1, 'Required')
  .max(63, 'PostgreSQL names are at most 63 characters')
  .refine((v) => !/[\u0000]/.test(v), 'Invalid name');

export const POSTGRES_ACTIONS = ['delete', 'set_null', 'hash', 'mask', 'soft_delete'] as const;

export const postgresRuleSchema = z
  .object({
    schema: ident.default('public'),
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
      ctx.addIssue({ code: 'custom', path: ['columns'], message: `Pick the columns to ${rule.action.replace('_', ' ')}` });
    }
    if (rule.action === 'soft_delete' && !rule.softDeleteColumn) {
      ctx.addIssue({ code: 'custom', path: ['softDeleteColumn'], message: 'Pick the flag or timestamp column' });
    }
  });
export type PostgresRule = z.infer<typeof postgresRuleSchema>;

export const postgresConfigSchema = z.object({
  /** Executed in order, in one transaction: put child tables (orders) before parents (users). */
  rules: z.array(postgresRuleSchema).min(1, 'Add at least one rule').max(50),
  statementTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  /** Optional daily window (UTC hours) in which deletions run; outside it requests wait as PENDING. */
  maintenanceWindow: z
    .object({ startHourUtc: z.number().int().min(0).max(23), endHourUtc: z.number().int().min(0).max(24) })
    .refine((w) => w.startHourUtc !== w.endHourUtc, 'Start and end must differ')
    .optional(),
});
export type PostgresConfig = z.infer<typeof postgresConfigSchema>;

export const HASH_PREFIX = 'sha256:';
export const MASK_VALUE = '[masked]';
