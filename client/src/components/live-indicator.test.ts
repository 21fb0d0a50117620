import { describe, expect, it } from 'vitest';
import { liveState, type PolledQuery } from './live-indicator';

const now = 1_000_000;
const ok: PolledQuery = { dataUpdatedAt: now - 1000, errorUpdatedAt: 0, failureCount: 0, fetchStatus: 'idle' };

describe('liveState', () => {
  it('is live only while refreshes succeed', () => {
    expect(liveState(ok, true, 4000, now)).toBe('live');
    expect(liveState({ ...ok, failureCount: 1, fetchStatus: 'fetching' }, true, 4000, now)).toBe('stale');
    expect(liveState({ ...ok, errorUpdatedAt: now - 10 }, true, 4000, now)).toBe('stale');
    expect(liveState({ ...ok, dataUpdatedAt: now - 13_000 }, true, 4000, now)).toBe('stale');
  });

  it('says offline when the browser is, or the query waits for the network', () => {
    expect(liveState(ok, false, 4000, now)).toBe('offline');
    expect(liveState({ ...ok, fetchStatus: 'paused' }, true, 4000, now)).toBe('offline');
  });
});
