import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../db/client';
import { createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { authenticatePat } from './authenticate';
import { PatCache, patCacheFor } from './pat-cache';

let env: TestEnv;
/** A second API process on the same database: its own pool, its own cache. */
let other: Database;

beforeAll(async () => {
  env = await createTestEnv();
  other = connectDatabase(env.db.url, 2);
});
afterAll(async () => {
  await other?.close();
  await env?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retries `check` until it passes (a notification takes a moment to arrive) or `ms` elapse. */
async function eventually(check: () => Promise<void>, ms = 2_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

/** Authenticates once and waits until the cache is listening, so that the next success is kept. */
async function warm(token: string) {
  await authenticatePat(env.db.prisma, token);
  await eventually(async () => {
    await authenticatePat(env.db.prisma, token);
    expect(patCacheFor(env.db.prisma)!.size).toBeGreaterThan(0);
  });
}

/** Runs `sql` as a change the triggers do not see, to tell a cached answer from a fresh one. */
async function silently(sql: string, values: unknown[]) {
  const client = await env.db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('ALTER TABLE "Membership" DISABLE TRIGGER "Membership_auth_changed"');
    await client.query(sql, values);
    await client.query('ALTER TABLE "Membership" ENABLE TRIGGER "Membership_auth_changed"');
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

describe('verified token cache', () => {
  it('answers a valid token from memory within its lifetime', async () => {
    const org = await seedOrganization(env.deps);
    await warm(org.pat);
    // The owner's role changes without the trigger: the cached answer still says OWNER.
    await silently(`UPDATE "Membership" SET role = 'MEMBER' WHERE "userId" = $1`, [org.user.id]);
    expect((await authenticatePat(env.db.prisma, org.pat)).role).toBe('OWNER');
    patCacheFor(env.db.prisma)!.forget();
    expect((await authenticatePat(env.db.prisma, org.pat)).role).toBe('MEMBER');
  });

  it('looks the token up on every call when the cache is off (TOKEN_CACHE_SECONDS=0)', async () => {
    const org = await seedOrganization(env.deps);
    await warm(org.pat);
    await silently(`UPDATE "Membership" SET role = 'ADMIN' WHERE "userId" = $1`, [org.user.id]);
    expect((await authenticatePat(env.db.prisma, org.pat, { cacheMs: 0 })).role).toBe('ADMIN');
  });

  it('forgets a token at once when another process revokes it', async () => {
    const org = await seedOrganization(env.deps);
    await warm(org.pat);
    await other.pool.query(`UPDATE "PersonalAccessToken" SET "revokedAt" = now() WHERE id = $1`, [org.patId]);
    const started = Date.now();
    await eventually(() => expect(authenticatePat(env.db.prisma, org.pat)).rejects.toThrow('revoked'));
    // Far sooner than the cache lifetime: the notification emptied it.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('forgets on a role change and on a removed membership made elsewhere', async () => {
    const org = await seedOrganization(env.deps);
    await warm(org.pat);
    await other.pool.query(`UPDATE "Membership" SET role = 'ADMIN' WHERE "userId" = $1`, [org.user.id]);
    await eventually(async () => expect((await authenticatePat(env.db.prisma, org.pat)).role).toBe('ADMIN'));
    await warm(org.pat);
    await other.pool.query(`DELETE FROM "Membership" WHERE "userId" = $1`, [org.user.id]);
    await eventually(() => expect(authenticatePat(env.db.prisma, org.pat)).rejects.toThrow('no longer a member'));
  });

  it('never keeps a revoked, expired or unknown token', async () => {
    const org = await seedOrganization(env.deps);
    await other.pool.query(`UPDATE "PersonalAccessToken" SET "expiresAt" = now() - interval '1 minute' WHERE id = $1`, [
      org.patId,
    ]);
    await expect(authenticatePat(env.db.prisma, org.pat)).rejects.toThrow('expired');
    await other.pool.query(`UPDATE "PersonalAccessToken" SET "expiresAt" = NULL WHERE id = $1`, [org.patId]);
    await eventually(async () => expect((await authenticatePat(env.db.prisma, org.pat)).userId).toBe(org.user.id));
  });

  it('does not store a lookup that a change overtook', async () => {
    const cache = patCacheFor<string>(other.prisma)!;
    await eventually(async () => {
      await cache.get(
        'warm',
        async () => 'x',
        () => true,
        10_000,
      );
      expect(cache.size).toBeGreaterThan(0);
    });
    cache.forget();
    let release!: () => void;
    const lookup = cache.get(
      'token',
      () => new Promise<string>((resolve) => (release = () => resolve('valid'))),
      () => true,
      10_000,
    );
    await sleep(10);
    cache.forget();
    release();
    expect(await lookup).toBe('valid');
    expect(cache.size).toBe(0);
  });

  it('keeps nothing while it cannot listen for changes', async () => {
    const cache = new PatCache<string>({ host: '127.0.0.1', port: 9, connectionTimeoutMillis: 200 });
    let loads = 0;
    for (let i = 0; i < 3; i++) {
      await cache.get(
        'token',
        async () => `value-${++loads}`,
        () => true,
        10_000,
      );
      await sleep(50);
    }
    expect(loads).toBe(3);
    expect(cache.size).toBe(0);
    await cache.close();
  });
});
