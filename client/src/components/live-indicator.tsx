import { useEffect, useState, useSyncExternalStore } from 'react';
import { formatRelative, formatTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';

/** What a polled query reports about its refreshes (a subset of TanStack Query's result). */
export interface PolledQuery {
  dataUpdatedAt: number;
  errorUpdatedAt: number;
  failureCount: number;
  fetchStatus: 'fetching' | 'paused' | 'idle';
  isRefetchError?: boolean;
}

export type LiveState = 'live' | 'stale' | 'offline';

/**
 * Live only while refreshes succeed: a refresh that failed (server down, 502), one that has
 * not come back for three intervals, or a browser that is offline makes the screen stale,
 * and it says since when.
 */
export function liveState(query: PolledQuery, online: boolean, intervalMs: number, now = Date.now()): LiveState {
  if (!online || query.fetchStatus === 'paused') return 'offline';
  if (query.failureCount > 0 || query.isRefetchError || query.errorUpdatedAt > query.dataUpdatedAt) return 'stale';
  if (now - query.dataUpdatedAt > 3 * intervalMs) return 'stale';
  return 'live';
}

function subscribeOnline(listener: () => void) {
  window.addEventListener('online', listener);
  window.addEventListener('offline', listener);
  return () => {
    window.removeEventListener('online', listener);
    window.removeEventListener('offline', listener);
  };
}

export function LiveIndicator({ query, intervalMs }: { query: PolledQuery; intervalMs: number }) {
  const online = useSyncExternalStore(
    subscribeOnline,
    () => navigator.onLine,
    () => true,
  );
  // Re-evaluated every second, so a refresh that never comes back turns the indicator stale.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const zone = useTimeZoneChoice();
  const state = liveState(query, online, intervalMs, now);
  const last = query.dataUpdatedAt
    ? `${formatTime(query.dataUpdatedAt, zone)} (${formatRelative(new Date(query.dataUpdatedAt).toISOString(), now, zone)})`
    : 'never';
  return (
    // Announced when it turns stale or offline (and back), not on every refresh.
    <p
      className={`live-note small live-${state}`}
      role="status"
      aria-live={state === 'live' ? 'off' : 'polite'}
      data-live-state={state}
    >
      <span className="live-dot" aria-hidden="true" />
      {state === 'live' ? (
        <span className="muted">Live · refreshed {formatTime(query.dataUpdatedAt, zone)}</span>
      ) : state === 'offline' ? (
        <span>Offline: statuses are not being refreshed. Last refreshed {last}.</span>
      ) : (
        <span>Not up to date: the server is not answering refreshes. Last refreshed {last}.</span>
      )}
    </p>
  );
}
