import { sleep } from '../runtime/vendor-http';

/**
 * Spaces calls to one Mixpanel project at least `intervalMs` apart (Mixpanel allows one GDPR
 * API request per second per project). Per process: several worker processes each keep their
 * own schedule, and Mixpanel's 429 (queued, not failed) covers what they miss together.
 *
 * Every call owns a time slot. A caller whose slot is further away than it may wait inline is
 * told when to come back, and the slot stays reserved for it (same holder id). A caller that
 * comes back after its slot has passed takes the next free gap instead.
 */
export class ProjectRateLimiter {
  private slots = new Map<string, number[]>();
  private held = new Map<string, { key: string; at: number }>();

  constructor(public intervalMs: number) {}

  /** Null when the caller may call now (after waiting at most `maxInlineWaitMs`); otherwise when to come back. */
  async turn(key: string, holder: string, maxInlineWaitMs: number): Promise<Date | null> {
    const now = Date.now();
    const times = this.prune(key, now);
    let at: number;
    const reserved = this.held.get(holder);
    this.held.delete(holder);
    if (reserved && reserved.key === key && reserved.at >= now) {
      at = reserved.at;
    } else {
      if (reserved) this.release(key, reserved.at);
      at = this.freeSlot(times, now);
      times.push(at);
      times.sort((a, b) => a - b);
    }
    if (at - now > maxInlineWaitMs) {
      this.held.set(holder, { key, at });
      return new Date(at);
    }
    if (at > now) await sleep(at - now);
    return null;
  }

  /** Mixpanel answered 429: nobody in this process calls the project again before `until`. */
  backOff(key: string, until: number): void {
    const times = this.slots.get(key) ?? [];
    times.push(until - this.intervalMs);
    times.sort((a, b) => a - b);
    this.slots.set(key, times);
  }

  /** The earliest time from `now` at least one interval away from every reserved slot. */
  private freeSlot(times: number[], now: number): number {
    const candidates = [now, ...times.map((t) => t + this.intervalMs)].filter((c) => c >= now).sort((a, b) => a - b);
    for (const c of candidates) if (times.every((t) => Math.abs(t - c) >= this.intervalMs)) return c;
    return Math.max(now, (times[times.length - 1] ?? now) + this.intervalMs);
  }

  private release(key: string, at: number): void {
    const times = this.slots.get(key);
    const index = times?.indexOf(at) ?? -1;
    if (times && index >= 0) times.splice(index, 1);
  }

  /** Slots older than one interval no longer constrain anything. */
  private prune(key: string, now: number): number[] {
    const times = (this.slots.get(key) ?? []).filter((t) => t > now - this.intervalMs);
    this.slots.set(key, times);
    if (this.held.size > 1000)
      for (const [holder, slot] of this.held) if (slot.at < now - 600_000) this.held.delete(holder);
    return times;
  }
}

/** One limiter per process, shared by every Mixpanel integration (keyed by host and project); 1 s plus a margin for network jitter. */
export const mixpanelRateLimiter = new ProjectRateLimiter(1_050);
