import { describe, expect, it } from 'vitest';
import { IdleCache } from './idle-cache';

describe('IdleCache (connection pools and SDK clients of data stores)', () => {
  it('reuses a client while in use and closes it once idle', async () => {
    const closed: string[] = [];
    let created = 0;
    const cache = new IdleCache<string>((value) => void closed.push(value), 30);
    const key = IdleCache.key(['127.0.0.1', { user: 'app' }]);
    const first = cache.with(
      key,
      () => `client-${++created}`,
      async (c) => {
        await new Promise((r) => setTimeout(r, 60));
        return c;
      },
    );
    const second = await cache.with(
      key,
      () => `client-${++created}`,
      async (c) => c,
    );
    expect(await first).toBe('client-1');
    expect(second).toBe('client-1');
    expect(closed).toEqual([]);
    expect(cache.size).toBe(1);
    await new Promise((r) => setTimeout(r, 80));
    expect(closed).toEqual(['client-1']);
    expect(cache.size).toBe(0);
    // Other credentials are another client; a failed one is evicted at once.
    const other = IdleCache.key(['127.0.0.1', { user: 'other' }]);
    await cache.with(
      other,
      () => `client-${++created}`,
      async () => undefined,
    );
    await cache.evict(other);
    expect(closed).toEqual(['client-1', 'client-2']);
  });
});
