import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createOutboundPolicy } from './lib/ssrf';

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/=_-]+$/, 'must be base64 or hex')
    .optional(),
  LOG_LEVEL: logLevel.default('info'),
  PUBLIC_URL: z.url().optional(),
  ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Server-side prepared statements on the hot path; turn off behind PgBouncer < 1.21 in transaction mode. */
  DB_PREPARED_STATEMENTS: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('true')
    .transform((v) => v === 'true'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  // Deletion engine
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1_024).default(16),
  /** Connections a worker keeps to one customer database (PostgreSQL, MySQL) whose integration has no `maxConcurrency`. */
  CUSTOMER_DB_CONNECTIONS: z.coerce.number().int().min(1).max(1_024).default(4),
  WORKER_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  LEASE_SECONDS: z.coerce.number().int().min(2).max(3_600).default(60),
  /** On SIGTERM, how long in-flight engine steps may finish before their leases are handed back. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** When set, /metrics and /healthz are served on this port (any role) instead of the API port. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Without METRICS_PORT, /metrics on the API port answers only `Authorization: Bearer <METRICS_TOKEN>` (404 when unset). */
  METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  /** How often worker processes seal new audit entries into the hash chain. */
  AUDIT_SEAL_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Whole months of audit log kept before the current one; older months are dropped. Unset: kept forever. */
  AUDIT_LOG_RETENTION_MONTHS: z.coerce.number().int().min(1).max(1_200).optional(),
  MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(6),
  RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  RETRY_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(1_800_000),
  ASYNC_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(86_400_000).default(60_000),
  ASYNC_POLL_MAX_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(86_400_000)
    .default(6 * 3_600_000),
  ASYNC_MAX_AGE_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24 * 35),
  /** Old master keys (comma-separated), readable during a master key rotation; see SECURITY.md. */
  PREVIOUS_ENCRYPTION_KEYS: z.string().optional(),
  /** Hosts, IPs and CIDRs that outbound calls may reach although private (comma-separated). */
  OUTBOUND_ALLOWLIST: z.string().default(''),
  /** Which peers may set X-Forwarded-For: true, false, a hop count, or addresses/CIDRs/names (loopback, linklocal, uniquelocal). */
  TRUST_PROXY: z.string().min(1).default('loopback,linklocal,uniquelocal'),
  /** How long an API process keeps a verified PAT (0: look it up on every call); see SECURITY.md. */
  TOKEN_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(10),
  /** Public API requests per minute per personal access token (0 turns the limit off). */
  API_RATE_LIMIT_PER_TOKEN: z.coerce.number().int().min(0).default(600),
  /** Public API requests per minute per client address (0 turns the limit off). */
  API_RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).default(1200),
  /** Status callbacks a worker process sends at once. */
  CALLBACK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** How often an idle worker looks for due callback deliveries. */
  CALLBACK_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1_000),
  /** Attempts before a callback delivery is given up (FAILED; "Resend" in the dashboard starts again). */
  CALLBACK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(12),
  CALLBACK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  CALLBACK_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(86_400_000)
    .default(6 * 3_600_000),
  /** How long a callback endpoint may take to answer. */
  CALLBACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Identifiers per minute per personal access token that erasure checks may look up (0 turns the limit off). */
  ERASURE_CHECK_LIMIT_PER_TOKEN: z.coerce.number().int().min(0).default(10_000),
  /** Sign-in attempts per 15 minutes per account email (0 turns the limit off). */
  SIGN_IN_LIMIT_PER_EMAIL: z.coerce.number().int().min(0).default(10),
  /** Sign-in and sign-up attempts per 15 minutes per client address (0 turns the limit off). */
  SIGN_IN_LIMIT_PER_IP: z.coerce.number().int().min(0).default(50),
  /** Google OAuth client for Google Analytics accounts; register PUBLIC_URL/oauth/callback/google as its redirect URI. */
  GOOGLE_OAUTH_CLIENT_ID: z.string().trim().min(1).optional(),
  GOOGLE_OAUTH_CLIENT_SECRET: z.string().trim().min(1).optional(),
  /** Google's authorization and token endpoints (overridable for tests and proxies). */
  GOOGLE_OAUTH_AUTHORIZE_URL: z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_OAUTH_TOKEN_URL: z.url().default('https://oauth2.googleapis.com/token'),
  /** Outgoing email (notifications, password reset, sign-up verification): off while SMTP_HOST is unset. */
  SMTP_HOST: z.string().trim().min(1).optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  /** true: TLS from the first byte (port 465); false: STARTTLS when the server offers it. */
  SMTP_SECURE: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().trim().min(3).default('Data Deletion Service <no-reply@localhost>'),
  /** Minutes a password reset link works; hours an email verification link works. */
  PASSWORD_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(1440).default(60),
  EMAIL_VERIFICATION_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(72),
  /** How often workers look for events to notify about (integration failed, completed, digest). */
  NOTIFY_INTERVAL_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Omit<
  Env,
  'ENCRYPTION_KEY' | 'PUBLIC_URL' | 'PREVIOUS_ENCRYPTION_KEYS' | 'TRUST_PROXY' | 'SMTP_PASSWORD'
> {
  /** SMTP_PASSWORD, under a name that says it is a secret (never logged, never shown). */
  smtpPassword?: string;
  /** 32-byte master key. */
  encryptionKey: Buffer;
  /** Earlier master keys, only used to unwrap data keys not yet re-wrapped by `keys:rotate-master`. */
  previousEncryptionKeys: Buffer[];
  /** Fastify's trustProxy option, parsed from TRUST_PROXY. */
  trustProxy: boolean | number | string[];
  /** Where the key came from, for the start-up log (never the key itself). */
  encryptionKeySource: 'env' | 'generated' | 'data-dir';
  PUBLIC_URL: string;
}

export class ConfigError extends Error {}

export function parseKey(raw: string): Buffer {
  const trimmed = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32)
    throw new ConfigError('ENCRYPTION_KEY must encode exactly 32 bytes (64 hex characters or 44 base64 characters)');
  return key;
}

function parseTrustProxy(raw: string): Config['trustProxy'] {
  const value = raw.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/**
 * Reads and validates configuration from the environment. With no ENCRYPTION_KEY and no
 * external database, a key is generated once into DATA_DIR so the embedded default works.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  let encryptionKey: Buffer;
  let encryptionKeySource: Config['encryptionKeySource'];
  if (e.ENCRYPTION_KEY) {
    encryptionKey = parseKey(e.ENCRYPTION_KEY);
    encryptionKeySource = 'env';
  } else if (!e.DATABASE_URL) {
    const keyFile = path.join(e.DATA_DIR, 'encryption.key');
    if (fs.existsSync(keyFile)) {
      encryptionKey = parseKey(fs.readFileSync(keyFile, 'utf8'));
      encryptionKeySource = 'data-dir';
    } else {
      fs.mkdirSync(e.DATA_DIR, { recursive: true });
      encryptionKey = randomBytes(32);
      fs.writeFileSync(keyFile, encryptionKey.toString('base64') + '\n', { mode: 0o600 });
      encryptionKeySource = 'generated';
    }
  } else {
    throw new ConfigError(
      'ENCRYPTION_KEY is required when DATABASE_URL is set (generate one with: openssl rand -base64 32)',
    );
  }
  const previousEncryptionKeys = (e.PREVIOUS_ENCRYPTION_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => {
      try {
        return parseKey(k);
      } catch {
        throw new ConfigError(
          'PREVIOUS_ENCRYPTION_KEYS: every entry must encode exactly 32 bytes (base64 or hex), comma-separated',
        );
      }
    });
  try {
    createOutboundPolicy(e.OUTBOUND_ALLOWLIST.split(','));
  } catch (error) {
    throw new ConfigError(`OUTBOUND_ALLOWLIST: ${(error as Error).message}`);
  }
  const { ENCRYPTION_KEY: _omit, PREVIOUS_ENCRYPTION_KEYS: _previous, TRUST_PROXY, SMTP_PASSWORD, ...rest } = e;
  return {
    ...rest,
    smtpPassword: SMTP_PASSWORD,
    trustProxy: parseTrustProxy(TRUST_PROXY),
    previousEncryptionKeys,
    encryptionKey,
    encryptionKeySource,
    PUBLIC_URL: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
  };
}
