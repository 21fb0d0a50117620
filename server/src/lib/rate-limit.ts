import net from 'node:net';
import { createHash } from 'node:crypto';

/**
 * In-process token buckets: each API process enforces the limits on its own (with N
 * processes a client can get up to N times the limit). No database round trip, O(1)
 * per request, memory bounded by `maxKeys` (least recently used keys are forgotten).
 */
export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until one more request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
  remaining: number;
  limit: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  /** `capacity` requests at once, refilled continuously over `windowMs`; capacity 0 means unlimited. */
  constructor(
    readonly capacity: number,
    readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {
    this.refillPerMs = capacity / windowMs;
  }

  /** Takes `cost` tokens at once (all or none). */
  take(key: string, now = Date.now(), cost = 1): RateDecision {
    if (this.capacity <= 0) return { allowed: true, retryAfterSeconds: 0, remaining: Infinity, limit: 0 };
    let bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs);
      bucket.updatedAt = now;
      // Re-inserting keeps Map order = least recently used first, for eviction.
      this.buckets.delete(key);
    } else {
      bucket = { tokens: this.capacity, updatedAt: now };
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(bucket.tokens), limit: this.capacity };
    }
    const missing = Math.min(cost, this.capacity) - bucket.tokens;
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(missing / this.refillPerMs / 1000)),
      remaining: Math.floor(bucket.tokens),
      limit: this.capacity,
    };
  }

  /** Gives back a token taken by `take` (used when a later check refuses the request anyway). */
  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.capacity, bucket.tokens + 1);
  }

  get size(): number {
    return this.buckets.size;
  }
}

export interface RateLimiters {
  apiPerToken: TokenBucketLimiter;
  apiPerIp: TokenBucketLimiter;
  signInPerEmail: TokenBucketLimiter;
  signInPerIp: TokenBucketLimiter;
  /** Identifiers looked up by erasure checks, per token. */
  erasureChecksPerToken: TokenBucketLimiter;
}

const MINUTE = 60_000;
const SIGN_IN_WINDOW = 15 * MINUTE;
const byConfig = new WeakMap<object, RateLimiters>();

/** The limits per minute (0 = off), as the configuration gives them. */
type LimitSettings = Record<
  'API_RATE_LIMIT_PER_TOKEN' | 'API_RATE_LIMIT_PER_IP' | 'SIGN_IN_LIMIT_PER_EMAIL' | 'SIGN_IN_LIMIT_PER_IP',
  number
> &
  Partial<Record<'ERASURE_CHECK_LIMIT_PER_TOKEN', number>>;

/** The process's limiters for one configuration (tests with their own config get their own). */
export function rateLimitersFor(config: LimitSettings): RateLimiters {
  let limiters = byConfig.get(config);
  if (!limiters) {
    limiters = {
      apiPerToken: new TokenBucketLimiter(config.API_RATE_LIMIT_PER_TOKEN, MINUTE),
      apiPerIp: new TokenBucketLimiter(config.API_RATE_LIMIT_PER_IP, MINUTE),
      signInPerEmail: new TokenBucketLimiter(config.SIGN_IN_LIMIT_PER_EMAIL, SIGN_IN_WINDOW),
      signInPerIp: new TokenBucketLimiter(config.SIGN_IN_LIMIT_PER_IP, SIGN_IN_WINDOW),
      erasureChecksPerToken: new TokenBucketLimiter(config.ERASURE_CHECK_LIMIT_PER_TOKEN ?? 0, MINUTE),
    };
    byConfig.set(config, limiters);
  }
  return limiters;
}

/** IPv4 addresses as they are; IPv6 by /64, since one client usually holds a whole /64. */
export function clientAddressKey(ip: string): string {
  const address = ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  if (!net.isIPv6(address)) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Bucket key for a presented secret: never keep the secret itself in memory longer than needed. */
export function secretKey(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url').slice(0, 22);
}
