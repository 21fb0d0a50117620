import { sleep } from '../vendor-http';

/**
 * Spaces calls to one Mixpanel project by a minimum interval (Mixpanel allows one GDPR API
 * request per second per project). Per process: several worker processes each keep their
 * own schedule, and Mixpanel's 429 (queued, not failed) covers what they miss together.
 *
 * A caller that would wait longer than `maxInlineWaitMs` gets its slot reserved and the time
 * to come back; when it comes back (same holder id) it uses that slot.
 */
export class ProjectRateLimiter {
  private lastCallAt = new Map<string, number>();
  private held = new Map<string, { key: string; at: number }>();

  constructor(public intervalMs: number) {}

  /** Null when the caller may call now (after a short wait); otherwise when to come back. */
  async turn(key: string, holder: string, maxInlineWaitMs: number): Promise<Date | null> {
    const now = Date.now();
    this.forgetStale(now);
    const reserved = this.held.get(holder);
    if (reserved && reserved.key === key) {
      // Back for the slot reserved earlier: later callers were scheduled after it.
      if (reserved.at - now > maxInlineWaitMs) return new Date(reserved.at);
      this.held.delete(holder);
      if (reserved.at > now) await sleep(reserved.at - now);
      return null;
    }
    const at = Math.max(now, (this.lastCallAt.get(key) ?? 0) + this.intervalMs);
    if (at - now > maxInlineWaitMs) {
      this.lastCallAt.set(key, at);
      this.held.set(holder, { key, at });
      return new Date(at);
    }
    this.lastCallAt.set(key, at);
    if (at > now) await sleep(at - now);
    return null;
  }

  /** Mixpanel answered 429: nobody in this process calls the project before `until`. */
  backOff(key: string, until: number): void {
    this.lastCallAt.set(key, Math.max(this.lastCallAt.get(key) ?? 0, until - this.intervalMs));
  }

  private forgetStale(now: number): void {
    if (this.held.size < 1000) return;
    for (const [holder, slot] of this.held) if (slot.at < now - 600_000) this.held.delete(holder);
  }
}

/** One limiter per process, shared by every Mixpanel integration (keyed by host and project). */
export const mixpanelRateLimiter = new ProjectRateLimiter(1_000);
