import { z } from 'zod';
import type { ACCOUNT_TYPES } from '../statuses';
import { isServiceAccountKey } from './service-account';

/** The kinds of credentials an account holds (the `AccountType` enum of the database). */
export type AccountType = (typeof ACCOUNT_TYPES)[number];

const secret = z.string().min(1, 'Required').max(10_000);

/** Credentials by account type. Everything here is stored encrypted and never returned. */
export const accountSecretSchemas = {
  API_KEY: z.object({ apiKey: secret }),
  API_KEY_SECRET: z.object({ apiKey: secret, secretKey: secret }),
  OAUTH: z.object({
    accessToken: secret,
    refreshToken: secret.optional(),
    /** ISO time the access token expires. */
    expiresAt: z.string().datetime().optional(),
    scope: z.string().max(2000).optional(),
  }),
  DATABASE: z.object({
    host: z.string().trim().min(1, 'Required').max(255),
    /** Default: 5432 for PostgreSQL, 3306 for MySQL/MariaDB. */
    port: z.coerce.number().int().min(1).max(65535).optional(),
    database: z.string().trim().min(1, 'Required').max(128),
    user: z.string().trim().min(1, 'Required').max(128),
    password: z.string().max(1000).default(''),
    sslMode: z.enum(['disable', 'require', 'verify-full']).default('require'),
  }),
  /** Webhook secrets: any keys, usable as {{key}} in templates. */
  KEY_VALUE: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'Keys are letters, digits and _'), z.string().max(10_000))
    .refine((r) => Object.keys(r).length <= 50, 'At most 50 keys'),
  REDIS: z.object({
    host: z.string().trim().min(1, 'Required').max(255),
    port: z.coerce.number().int().min(1).max(65535).optional(),
    username: z.string().max(256).optional(),
    password: z.string().max(1000).optional(),
    database: z.coerce.number().int().min(0).max(1000).optional(),
    tls: z.boolean().default(false),
  }),
  /** Amazon S3 and DynamoDB; `endpoint` for S3-compatible stores (MinIO, R2...) and local emulators. */
  AWS: z.object({
    accessKeyId: z.string().trim().min(1, 'Required').max(256),
    secretAccessKey: secret,
    sessionToken: z.string().max(10_000).optional(),
    region: z
      .string()
      .trim()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'An AWS region such as eu-west-1')
      .default('us-east-1'),
    endpoint: z.string().trim().url('A URL such as https://s3.example.com').max(500).optional(),
  }),
  /**
   * Snowflake's SQL API with key-pair authentication: the user's private key (PEM, unencrypted
   * PKCS#8) signs a short-lived JWT. Only the private key is secret.
   */
  SNOWFLAKE: z.object({
    account: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/, 'An account identifier such as myorg-myaccount'),
    user: z.string().trim().min(1, 'Required').max(255),
    privateKey: secret,
    warehouse: z.string().trim().min(1, 'Required').max(255),
    database: z.string().trim().min(1, 'Required').max(255),
    role: z.string().trim().max(255).optional(),
    /** Only for a private connectivity host or a test stand-in; empty: https://<account>.snowflakecomputing.com. */
    endpoint: z
      .string()
      .trim()
      .url('A URL such as https://myorg-myaccount.privatelink.snowflakecomputing.com')
      .max(500)
      .optional(),
  }),
  /** A Google Cloud service account's JSON key, as the console downloads it (BigQuery). */
  GOOGLE_SERVICE_ACCOUNT: z.object({
    serviceAccountKey: secret.refine(isServiceAccountKey, 'Paste the JSON key of a service account'),
  }),
} as const satisfies Record<AccountType, z.ZodType>;

export type AccountSecretsByType = {
  [K in keyof typeof accountSecretSchemas]: z.infer<(typeof accountSecretSchemas)[K]>;
};

/**
 * The fields of each account type that are NOT secret (shown in hints, kept in audit
 * records). Every other field of the account is secret: this table, with
 * `isSecretAccountField` below, is the one place that decides it (for a new account type
 * the compiler asks for its line here).
 */
export const ACCOUNT_PUBLIC_FIELDS: Record<AccountType, readonly string[]> = {
  API_KEY: [],
  API_KEY_SECRET: [],
  OAUTH: ['expiresAt', 'scope'],
  DATABASE: ['host', 'port', 'database', 'user', 'sslMode'],
  KEY_VALUE: [],
  REDIS: ['host', 'port', 'username', 'database', 'tls'],
  AWS: ['accessKeyId', 'region', 'endpoint'],
  SNOWFLAKE: ['account', 'user', 'warehouse', 'database', 'role', 'endpoint'],
  GOOGLE_SERVICE_ACCOUNT: [],
};

/**
 * Where an account of each type makes the service connect: host names and URLs among its
 * fields. Each must pass the SSRF policy when the account is saved (and again, resolved,
 * at every connection).
 */
export const ACCOUNT_OUTBOUND_FIELDS: Record<AccountType, { hosts?: readonly string[]; urls?: readonly string[] }> = {
  API_KEY: {},
  API_KEY_SECRET: {},
  OAUTH: {},
  DATABASE: { hosts: ['host'] },
  KEY_VALUE: {},
  REDIS: { hosts: ['host'] },
  AWS: { urls: ['endpoint'] },
  // Otherwise the host is <account>.snowflakecomputing.com, checked like every outbound URL at each call.
  SNOWFLAKE: { urls: ['endpoint'] },
  GOOGLE_SERVICE_ACCOUNT: {},
};

/**
 * Whether `field` of an account of `type` is secret: every field its account type does not
 * declare public in `ACCOUNT_PUBLIC_FIELDS`. With no known type, every field is secret.
 * Hints (`services/accounts`) and the redaction of outbound calls and audit records
 * (`server/src/integrations/runtime/redaction.ts`) both ask this function.
 */
export function isSecretAccountField(type: AccountType | null | undefined, field: string): boolean {
  if (!type) return true;
  return !ACCOUNT_PUBLIC_FIELDS[type].includes(field);
}
