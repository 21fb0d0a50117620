import { z } from 'zod';

export const RETENTION_ACTIONS = ['NONE', 'HASH', 'DELETE'] as const;

/** Hash or delete a request's identifier `days` after it finished; NONE keeps it. */
export const retentionPolicySchema = z.object({
  action: z.enum(RETENTION_ACTIONS),
  days: z.number().int().min(0, 'Use 0 for "immediately"').max(3650),
});

/** Re-verification of store deletions N days after SUCCESS; null = off. */
export const reverificationSchema = z.object({
  reverifyAfterDays: z.number().int().min(1, 'At least 1 day').max(3650, 'At most 3650 days').nullable(),
});
