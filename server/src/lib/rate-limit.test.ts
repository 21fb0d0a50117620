import { describe, expect, it } from 'vitest';
import { clientAddressKey, TokenBucketLimiter } from './rate-limit';

describe('TokenBucketLimiter', () => {
  it('allows a burst of `capacity`, then refuses with the wait until the next token', () => {
    const limiter = new TokenBucketLimiter(3, 60_000);
    const t = 1_000_000;
    expect([1, 2, 3].map(() => limiter.take('k', t).allowed)).toEqual([true, true, true]);
    const refused = limiter.take('k', t);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 20, remaining: 0 });
    expect(limiter.take('other', t).allowed).toBe(true);
    expect(limiter.take('k', t + 19_000).allowed).toBe(false);
    expect(limiter.take('k', t + 20_000).allowed).toBe(true);
  });

  it('capacity 0 means unlimited; memory stays bounded by maxKeys', () => {
    const off = new TokenBucketLimiter(0, 1000);
    for (let i = 0; i < 1000; i++) expect(off.take('k').allowed).toBe(true);
    const bounded = new TokenBucketLimiter(1, 60_000, 10);
    for (let i = 0; i < 100; i++) bounded.take(`key${i}`, 0);
    expect(bounded.size).toBe(10);
  });
});

describe('clientAddressKey', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6 and groups IPv6 by /64', () => {
    expect(clientAddressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });
});
