import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

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
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Omit<Env, 'ENCRYPTION_KEY' | 'PUBLIC_URL'> {
  /** 32-byte master key. */
  encryptionKey: Buffer;
  /** Where the key came from, for the start-up log (never the key itself). */
  encryptionKeySource: 'env' | 'generated' | 'data-dir';
  PUBLIC_URL: string;
}

export class ConfigError extends Error {}

export function parseKey(raw: string): Buffer {
  const trimmed = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new ConfigError('ENCRYPTION_KEY must encode exactly 32 bytes (64 hex characters or 44 base64 characters)');
  return key;
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
    throw new ConfigError('ENCRYPTION_KEY is required when DATABASE_URL is set (generate one with: openssl rand -base64 32)');
  }
  const { ENCRYPTION_KEY: _omit, ...rest } = e;
  return {
    ...rest,
    encryptionKey,
    encryptionKeySource,
    PUBLIC_URL: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
  };
}
