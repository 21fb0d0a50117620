import type { IntegrationType } from '@shared/statuses';
import type { ForeignKey } from '@shared/integrations/foreign-keys';
import type { Logger } from '../lib/logger';
import type { ManualTaskPort } from './manual/port';
import type { HttpClient } from './runtime/http-client';

/** One recorded step of talking to a destination, for the audit trail (secrets already redacted). */
export type Exchange =
  | {
      kind: 'http';
      request: { method: string; url: string; headers: Record<string, string>; body?: string };
      response?: { status: number; headers: Record<string, string>; body?: string };
      error?: string;
      durationMs: number;
    }
  | { kind: 'sql'; statement: string; rowCount?: number; error?: string; durationMs: number };

export interface DriverContext<Config = unknown> {
  integrationType: IntegrationType;
  integrationRequestId: string;
  deletionRequestId: string;
  identifier: string;
  /**
   * This deletion's own key, for a destination's Idempotency-Key: the same on every repeat of it
   * (after a crash, on a retry), another for each identifier one integration request sends (the
   * integration request's id, then the identifier's). Absent: the integration request's id.
   */
  callKey?: string;
  /** The request's regulation ("GDPR", "CCPA" or a custom policy's name), where the deletion call can say it. */
  regulation?: string | null;
  config: Config;
  /** Decrypted account credentials, or null when the integration has no account. */
  secrets: Record<string, unknown> | null;
  /**
   * The integration's own key for keyed hashing in the customer's store (types with
   * `usesHashKey`); null for other drivers, or when the integration was deleted. Never recorded or logged.
   */
  hashKey: Buffer | null;
  trackingId: string | null;
  /** SSRF-guarded HTTP that records every exchange into `trail`. */
  http: HttpClient;
  /** Exchanges of this step; drivers append SQL steps themselves. */
  trail: Exchange[];
  /** Resolves a host name to an address the SSRF policy allows (for non-HTTP connections). */
  resolveHost(host: string): Promise<string>;
  log: Logger;
  now: Date;
  /** The manual tasks of this request (the `MANUAL` driver's only way to the service); absent in admin operations. */
  manualTasks?: ManualTaskPort;
  /**
   * The integration's `maxConcurrency` (its most calls at once across all worker processes), null
   * or absent without one: a database driver keeps up to as many connections for it instead of
   * `connections`.
   */
  maxConcurrency?: number | null;
  /**
   * How many connections a database driver keeps to its database when the integration has no
   * `maxConcurrency` (the worker's `CUSTOMER_DB_CONNECTIONS`); absent: 4.
   */
  connections?: number;
}

/**
 * What a destination said. `retry` is transient (network, 5xx, 429); `failed` is permanent
 * (auth, validation): the engine decides how long to wait and when to give up.
 */
export type Outcome =
  | { kind: 'success'; message: string; evidence?: Record<string, unknown> }
  | { kind: 'accepted'; trackingId: string; status: 'PENDING' | 'PROCESSING'; message: string; pollAfterMs?: number }
  | { kind: 'pending'; status: 'PENDING' | 'PROCESSING'; message: string; pollAfterMs?: number }
  /**
   * Not now, without using an attempt. `scheduled`: the wait is the integration's own schedule (its
   * maintenance window), so the age limit does not cut it short; a vendor's wait is cut to that limit.
   */
  | { kind: 'deferred'; until: Date; message: string; scheduled?: boolean }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'failed'; reason: string };

export interface CancelResult {
  canceled: boolean;
  message: string;
}

/** What a driver's admin operations (test connection, save-time validation, discover, dry run) get: no request. */
export type AdminContext<Config = unknown> = Omit<
  DriverContext<Config>,
  'identifier' | 'integrationRequestId' | 'deletionRequestId' | 'trackingId' | 'callKey' | 'hashKey' | 'manualTasks'
>;

/** A problem with a configuration found at save time; `path` is inside the configuration. */
export interface ConfigIssue {
  path: (string | number)[];
  message: string;
}

/** A table (or collection) a data store account can reach, with its columns: what a rule builder offers. */
export interface DiscoveredTable {
  schema: string;
  table: string;
  columns: {
    name: string;
    dataType: string;
    nullable: boolean;
    /** Characters a text column holds at most (databases that report it); absent: no limit known. */
    maxLength?: number;
    /** A primary key or unique index on this column alone: no two rows may hold the same value there. */
    unique?: boolean;
    /** The text column's character set (databases that report one per column). */
    charset?: string;
  }[];
  /** Tables (`schema.table`) whose rows reference this table's rows through a foreign key (databases that report them). */
  referencedBy?: string[];
  /** This table's foreign keys, each with its columns in key order and its ON DELETE behaviour (SQL databases). */
  foreignKeys?: ForeignKey[];
  /** Key-value tables (DynamoDB): the key attributes, and the secondary indexes a rule can query by. */
  keys?: { partitionKey: string; sortKey?: string };
  indexes?: { name: string; kind: 'global' | 'local'; partitionKey: string; sortKey?: string }[];
}

/** What a deletion would change, counted read-only: per rule, and the statements that counted. */
export interface DryRunResult {
  /** `rows`: rows, keys, objects or items, by what the store holds; `sample`: some of the keys it would erase (object stores). */
  rules: { rule: string; table: string; action: string; rows: number; sample?: string[] }[];
  statements: string[];
}

export interface Driver<Config = any> {
  type: IntegrationType;
  /** Async destinations hand back a tracking id and are polled. */
  async: boolean | ((config: Config) => boolean);
  /** Whether a sent deletion can be canceled at the destination. */
  canCancel: (config: Config) => boolean;
  requestDeletion(ctx: DriverContext<Config>): Promise<Outcome>;
  checkStatus?(ctx: DriverContext<Config>): Promise<Outcome>;
  cancel?(ctx: DriverContext<Config>): Promise<CancelResult>;
  testConnection(ctx: AdminContext<Config>): Promise<{ ok: boolean; message: string }>;
  /**
   * Save-time checks that need the destination itself (a database's live schema); the
   * configuration has already passed its zod schema. Runs only when an account is attached.
   */
  validateConfig?(ctx: AdminContext<Config>): Promise<ConfigIssue[]>;
  /** What the account can reach (tables and columns), for the configuration form; needs no configuration. */
  discover?(ctx: Omit<AdminContext, 'config'>): Promise<DiscoveredTable[]>;
  /** Read-only preview: what a deletion of `identifier` would change with this configuration. */
  dryRun?(ctx: AdminContext<Config> & { identifier: string }): Promise<DryRunResult>;
  /**
   * Runs the proof of deletion again, read-only, some time after SUCCESS (organization setting
   * `reverifyAfterDays`): data matching the subject that came back (a restored backup, an ETL
   * job) is counted. Only drivers that can look the subject up in their store have it.
   */
  reverify?(ctx: DriverContext<Config>): Promise<ReverifyResult>;
  /** Closes the clients the driver keeps between calls (connection pools); on shutdown and in tests. */
  close?(): Promise<void>;
  /** Typical time from request to confirmed deletion, shown to users. */
  expectedCompletion: string;
}

/** What a re-verification found: matching rows left outside their target state, per rule. */
export interface ReverifyResult {
  remaining: number;
  counts: Record<string, number>;
  message: string;
}

/** Thrown by drivers for a transient problem; the engine retries with backoff. */
export class TransientError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Thrown for a permanent problem (bad credentials, invalid request). */
export class PermanentError extends Error {}
