import pg from 'pg';
import { onDatabaseClose, poolOf, type Db } from '../../db/client';

const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;
export const AUTH_CHANGED_CHANNEL = 'auth_changed';

interface Entry<T> {
  value: T;
  at: number;
}

/**
 * Verified personal access tokens (their row and their owner's role), kept per process for
 * a few seconds (TOKEN_CACHE_SECONDS) so that a burst of public API calls does not look the same token up
 * every time. Safe to keep because the database says when to forget: triggers on
 * PersonalAccessToken and Membership (migration `auth_changed_notify`) notify
 * `auth_changed` when a token is revoked or its expiry changes, a role changes, a
 * membership goes, or a user or organization is deleted, whichever process or tool did
 * it, and every process drops all its entries at once. Nothing is cached while this
 * process is not listening (before the LISTEN, after its connection drops), and a lookup
 * that started before a notification is not stored after it.
 */
export class PatCache<T> {
  private entries = new Map<string, Entry<T>>();
  /** Bumped on every "forget": a lookup read before it may be stale and is not stored. */
  private generation = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private connecting: Promise<void> | null = null;
  private retryAt = 0;
  private closed = false;

  constructor(private readonly options: pg.ClientConfig) {}

  /** The value cached for at most `ttlMs`, or the one `load` reads (stored when it is safe to). */
  async get(key: string, load: () => Promise<T | null>, keep: (value: T) => boolean, ttlMs: number): Promise<T | null> {
    this.ensureListening();
    const entry = this.entries.get(key);
    if (entry && Date.now() - entry.at < ttlMs) return entry.value;
    if (entry) this.entries.delete(key);
    const generation = this.generation;
    const value = await load();
    if (value !== null && keep(value) && this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, at: Date.now() });
    }
    return value;
  }

  /** Drops every entry (also called in-process right after a revocation, before the notification arrives). */
  forget(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.forget();
    this.listening = false;
    await this.connecting?.catch(() => {});
    await this.listener?.end().catch(() => {});
    this.listener = null;
  }

  private ensureListening(): void {
    if (this.listening || this.connecting || this.closed || Date.now() < this.retryAt) return;
    this.connecting = this.listen().finally(() => {
      this.connecting = null;
    });
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.options);
    const lost = () => {
      if (this.listener !== client) return;
      this.listening = false;
      this.listener = null;
      this.forget();
      this.retryAt = Date.now() + RECONNECT_MS;
      client.end().catch(() => {});
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => this.forget());
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${AUTH_CHANGED_CHANNEL}`);
      if (this.closed) throw new Error('closed');
      // Changes made while nobody listened are unknown: start empty.
      this.forget();
      this.listening = true;
    } catch {
      lost();
    }
  }
}

const caches = new WeakMap<object, PatCache<unknown>>();

/** The token cache of the database under `db` (one per pool, closed with it); null when `db` has no pool of ours. */
export function patCacheFor<T>(db: Db): PatCache<T> | null {
  const pool = poolOf(db);
  if (!pool) return null;
  let cache = caches.get(pool) as PatCache<T> | undefined;
  if (!cache) {
    cache = new PatCache<T>((pool as unknown as { options: pg.ClientConfig }).options);
    caches.set(pool, cache);
    const created = cache;
    onDatabaseClose(pool, () => created.close());
  }
  return cache;
}

/**
 * After this process revoked a token or changed a membership: forget verified tokens now,
 * before the database's notification (which tells the other processes) comes back.
 */
export function forgetVerifiedTokens(db: Db): void {
  patCacheFor(db)?.forget();
}
