import { z } from 'zod';
import { defineConnector } from './connector';

const IDENTIFIER = '{{identifier}}';
const template = (what: string) =>
  z
    .string()
    .trim()
    .min(1, 'Required')
    .max(500)
    .refine((v) => v.includes(IDENTIFIER), `The ${what} must contain ${IDENTIFIER}`);
const name = z.string().trim().min(1, 'Required').max(500);

/** One thing to erase in Redis for the subject. */
export const redisRuleSchema = z.discriminatedUnion('kind', [
  /** Every key matching the pattern (glob `*`, `?`, `[..]` from the template; the identifier always literal), found with SCAN and removed with UNLINK. */
  z.object({
    kind: z.literal('keys'),
    pattern: template('key pattern').refine(
      (v) => !/[*?[\]]\{\{identifier\}\}|\{\{identifier\}\}[*?[\]]/.test(v),
      `A wildcard right next to ${IDENTIFIER} also matches other subjects (profile:12* finds profile:123): put a separator such as ':' between them`,
    ),
  }),
  /** One field of a hash (HDEL); the key may be a template too. */
  z.object({ kind: z.literal('hash_field'), key: name, field: template('field') }),
  /** One member of a set or sorted set (SREM / ZREM). */
  z.object({ kind: z.literal('set_member'), key: name, member: template('member') }),
]);
export type RedisRule = z.infer<typeof redisRuleSchema>;

export const redisConfigSchema = z.object({
  rules: z.array(redisRuleSchema).min(1, 'Add at least one rule').max(50),
  /** More keys than this for one request is a FAILED request, not a silent mass deletion. */
  maxKeys: z.number().int().min(1).max(1_000_000).default(10_000),
  maintenanceWindow: z
    .object({ startHourUtc: z.number().int().min(0).max(23), endHourUtc: z.number().int().min(0).max(24) })
    .refine((w) => w.startHourUtc !== w.endHourUtc, 'Start and end must differ')
    .optional(),
});
export type RedisConfig = z.infer<typeof redisConfigSchema>;

export const REDIS_IDENTIFIER_PLACEHOLDER = IDENTIFIER;

export const redisConnector = defineConnector({
  type: 'REDIS',
  label: 'Redis',
  accountTypes: ['REDIS'],
  accountRequired: true,
  configSchema: redisConfigSchema,
  catalogue: {
    category: 'Database',
    deletes: 'keys matching templates (user:{{identifier}}:*), hash fields, set and sorted-set members',
    credentials: 'host, port, username, password, database number, TLS',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'SCAN (identifier glob-escaped) + UNLINK in batches, never KEYS; above maxKeys it FAILS; scanned again as proof',
    completion: 'seconds',
    docsUrl: 'https://redis.io/docs/latest/commands/unlink/',
  },
});
