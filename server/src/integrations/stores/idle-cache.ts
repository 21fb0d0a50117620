import { createHash } from 'node:crypto';

/**
 * Clients of customer data stores (connection pools, SDK clients), kept between engine steps
 * and closed once nobody has used them for `idleMs`. Keyed by a hash of everything that
 * identifies the destination (the SSRF-checked address, the credentials, the options), so a
 * rotated secret or a moved host gets a new client and the old one closes when idle. The idle
 * timers are unref'd: a kept client never keeps the process alive.
 */
export class IdleCache<T> {
  private readonly entries = new Map<string, { value: T; users: number; timer?: NodeJS.Timeout }>();

  constructor(
    private readonly close: (value: T) => Promise<unknown> | void,
    private readonly idleMs = 10_000,
  ) {}

  static key(parts: unknown): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  }

  /** Runs `use` with the cached client for `key` (created on first use). */
  async with<R>(key: string, create: () => T, use: (value: T) => Promise<R>): Promise<R> {
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = { value: create(), users: 0 }));
    clearTimeout(entry.timer);
    entry.users++;
    try {
      return await use(entry.value);
    } finally {
      entry.users--;
      if (entry.users === 0) {
        const idle = entry;
        idle.timer = setTimeout(() => {
          if (this.entries.get(key) === idle && idle.users === 0) {
            this.entries.delete(key);
            void Promise.resolve(this.close(idle.value)).catch(() => {});
          }
        }, this.idleMs);
        idle.timer.unref();
      }
    }
  }

  /** Drops and closes the client for `key` (it failed): the next use creates a new one. */
  async evict(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    clearTimeout(entry.timer);
    await Promise.resolve(this.close(entry.value)).catch(() => {});
  }

  /** How many clients are open (tests: they close when idle). */
  get size(): number {
    return this.entries.size;
  }

  /** Closes every client now (shutdown, tests). */
  async closeAll(): Promise<void> {
    const values = [...this.entries.values()];
    this.entries.clear();
    for (const entry of values) clearTimeout(entry.timer);
    await Promise.all(values.map((e) => Promise.resolve(this.close(e.value)).catch(() => {})));
  }
}
