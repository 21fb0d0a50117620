import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisConfigSchema } from '@shared/integrations/redis';
import { assertHostAllowed, policyFromConfig } from '../../lib/ssrf';
import { startRedis } from '../../test/stores/redis';
import { PermanentError, type Exchange } from '../types';
import { closeRedisClients, redisDeleteAndVerify, redisDryRun, redisTestConnection } from './execute';
import { escapeGlob, keyPattern } from './patterns';

let redis: Awaited<ReturnType<typeof startRedis>>;
const policy = policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' });
const resolveHost = async (host: string) => (await assertHostAllowed(host, policy)).address;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await closeRedisClients();
  await redis?.stop();
});

const ctxFor = (rules: unknown[], identifier: string, extra: object = {}) => ({
  secrets: redis.credentials as Record<string, unknown>,
  resolveHost,
  config: redisConfigSchema.parse({ rules, ...extra }),
  identifier,
  trail: [] as Exchange[],
});

async function keys(pattern: string) {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await redis.client.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [
      string,
      string[],
    ];
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found.sort();
}

describe('Redis against a real redis-server', () => {
  it('escapes glob characters of the identifier', () => {
    expect(escapeGlob('a*b?c[d]e\\f')).toBe('a\\*b\\?c\\[d\\]e\\\\f');
    expect(keyPattern('user:{{identifier}}:*', 'x*')).toBe('user:x\\*:*');
  });

  it('connects with the password, through the SSRF guard', async () => {
    expect(await redisTestConnection({ secrets: redis.credentials, resolveHost })).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^Connected: Redis 7/),
    });
    expect(
      await redisTestConnection({ secrets: { ...redis.credentials, password: 'wrong' }, resolveHost }),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/WRONGPASS|invalid/) });
    const strict = policyFromConfig({});
    expect(
      await redisTestConnection({
        secrets: redis.credentials,
        resolveHost: async (h) => (await assertHostAllowed(h, strict)).address,
      }),
    ).toMatchObject({ ok: false, message: expect.stringContaining('loopback') });
  });

  it('dry run counts keys, hash fields and set members; deletion removes exactly those and verifies', async () => {
    const id = 'jane@example.com';
    for (let i = 0; i < 1200; i++) await redis.client.set(`user:${id}:item:${i}`, 'x');
    await redis.client.set(`user:${id}`, 'profile');
    await redis.client.set('user:Jane@example.com:item:1', 'look-alike');
    await redis.client.set('user:jane@example.com.evil:item:1', 'other');
    await redis.client.hSet('emails', { [id]: '1', 'other@example.com': '2' });
    await redis.client.sAdd('newsletter', [id, 'other@example.com']);
    await redis.client.zAdd('leaderboard', [
      { score: 3, value: id },
      { score: 1, value: 'other@example.com' },
    ]);
    const rules = [
      { kind: 'keys', pattern: 'user:{{identifier}}:*' },
      { kind: 'keys', pattern: 'user:{{identifier}}' },
      { kind: 'hash_field', key: 'emails', field: '{{identifier}}' },
      { kind: 'set_member', key: 'newsletter', member: '{{identifier}}' },
      { kind: 'set_member', key: 'leaderboard', member: '{{identifier}}' },
    ];
    const dry = await redisDryRun(ctxFor(rules, id));
    expect(dry.map((r) => r.rows)).toEqual([1200, 1, 1, 1, 1]);
    expect(await redis.client.exists(`user:${id}:item:7`)).toBe(1);

    const ctx = ctxFor(rules, id);
    const outcome = await redisDeleteAndVerify(ctx);
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: { changed: { 'keys user:{{identifier}}:*': 1200, 'keys user:{{identifier}}': 1 } },
    });
    expect(await keys('user:*')).toEqual(['user:Jane@example.com:item:1', 'user:jane@example.com.evil:item:1']);
    expect(await redis.client.hGetAll('emails')).toEqual({ 'other@example.com': '2' });
    expect(await redis.client.sMembers('newsletter')).toEqual(['other@example.com']);
    expect(await redis.client.zRange('leaderboard', 0, -1)).toEqual(['other@example.com']);
    // SCAN and UNLINK in batches, never KEYS; the identifier itself never appears in the trail.
    const commands = ctx.trail.map((s) => (s.kind === 'sql' ? s.statement.split(' ')[0] : ''));
    expect(commands).toContain('SCAN');
    expect(commands.filter((c) => c === 'UNLINK')).toHaveLength(4); // 1200 keys in batches of 500, and the exact key
    expect(commands).not.toContain('KEYS');
    expect(JSON.stringify(ctx.trail)).not.toContain('jane@');
  });

  it('an identifier with glob characters matches only itself', async () => {
    const hostile = 'a*[b]?\\';
    await redis.client.set(`session:${hostile}:1`, 'mine');
    for (const other of ['aXXX[b]?\\', 'a*b?\\', 'a*[b]x\\', 'anything', 'a*[b]?\\\\'])
      await redis.client.set(`session:${other}:1`, 'not mine');
    const before = (await keys('session:*')).length;
    const outcome = await redisDeleteAndVerify(
      ctxFor([{ kind: 'keys', pattern: 'session:{{identifier}}:*' }], hostile),
    );
    expect(outcome).toMatchObject({ kind: 'success', evidence: { changed: { 'keys session:{{identifier}}:*': 1 } } });
    expect(await keys('session:*')).toHaveLength(before - 1);
    expect(await redis.client.exists(`session:${hostile}:1`)).toBe(0);
    // `*` alone as the identifier is a literal star, not every session.
    await redis.client.set('session:*:1', 'star');
    expect(
      await redisDeleteAndVerify(ctxFor([{ kind: 'keys', pattern: 'session:{{identifier}}:*' }], '*')),
    ).toMatchObject({ kind: 'success' });
    expect(await keys('session:*')).toHaveLength(before - 1);
  });

  it('more keys than the limit is a clear permanent failure, with nothing deleted', async () => {
    for (let i = 0; i < 30; i++) await redis.client.set(`cart:many@example.com:${i}`, 'x');
    const error = await redisDeleteAndVerify(
      ctxFor([{ kind: 'keys', pattern: 'cart:{{identifier}}:*' }], 'many@example.com', { maxKeys: 10 }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toBe(
      'More than 10 keys match cart:{{identifier}}:*: raise the limit if that is expected',
    );
    expect(await keys('cart:many@example.com:*')).toHaveLength(30);
  });

  it('maxKeys bounds the whole request: two rules of 6 keys each with a limit of 10 fail, with nothing deleted', async () => {
    for (let i = 0; i < 6; i++) {
      await redis.client.set(`basket:both@example.com:${i}`, 'x');
      await redis.client.set(`wish:both@example.com:${i}`, 'x');
    }
    const rules = [
      { kind: 'keys', pattern: 'basket:{{identifier}}:*' },
      { kind: 'keys', pattern: 'wish:{{identifier}}:*' },
    ];
    const error = await redisDeleteAndVerify(ctxFor(rules, 'both@example.com', { maxKeys: 10 })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toBe(
      "More than 10 keys match this request's rules (6 before wish:{{identifier}}:*): raise the limit if that is expected",
    );
    expect(await keys('*:both@example.com:*')).toHaveLength(12);
    // The dry run says the same, and within the limit both rules are counted.
    await expect(redisDryRun(ctxFor(rules, 'both@example.com', { maxKeys: 10 }))).rejects.toThrow('More than 10 keys');
    expect((await redisDryRun(ctxFor(rules, 'both@example.com', { maxKeys: 12 }))).map((r) => r.rows)).toEqual([6, 6]);
  });

  it('verification catches a key written again after the deletion', async () => {
    await redis.client.set('token:back@example.com:1', 'x');
    // A second client of the customer's keeps writing the key: the proof after UNLINK sees it.
    const writer = setInterval(() => void redis.client.set('token:back@example.com:1', 'again').catch(() => {}), 1);
    try {
      let outcome;
      for (let i = 0; i < 50 && outcome?.kind !== 'retry'; i++)
        outcome = await redisDeleteAndVerify(
          ctxFor([{ kind: 'keys', pattern: 'token:{{identifier}}:*' }], 'back@example.com'),
        );
      expect(outcome).toMatchObject({
        kind: 'retry',
        reason: 'Verification found data still matching: keys token:{{identifier}}:*: 1',
      });
    } finally {
      clearInterval(writer);
    }
  });

  it('refuses a Redis in cluster mode, where a scan would see one node and miss the keys on the others', async () => {
    const cluster = await startRedis({ cluster: true });
    try {
      const error = await redisDeleteAndVerify({
        ...ctxFor([{ kind: 'keys', pattern: 'user:{{identifier}}:*' }], 'c@example.com'),
        secrets: cluster.credentials,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermanentError);
      expect((error as Error).message).toMatch(/cluster mode/);
    } finally {
      await closeRedisClients();
      await cluster.stop();
    }
  });

  it('a template without the identifier is refused', () => {
    expect(redisConfigSchema.safeParse({ rules: [{ kind: 'keys', pattern: 'user:*' }] }).success).toBe(false);
    // A wildcard against the identifier reaches other subjects: profile:12* finds profile:123.
    for (const pattern of ['profile:{{identifier}}*', '*{{identifier}}', 'p:{{identifier}}?', 'p:[ab]{{identifier}}'])
      expect(redisConfigSchema.safeParse({ rules: [{ kind: 'keys', pattern }] }).success).toBe(false);
    expect(redisConfigSchema.safeParse({ rules: [{ kind: 'keys', pattern: '*:{{identifier}}:*' }] }).success).toBe(
      true,
    );
  });
});
