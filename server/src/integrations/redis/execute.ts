import { createClient } from 'redis';
import type { RedisConfig, RedisRule } from '@shared/integrations/redis';
import type { DriverContext, Outcome, ReverifyResult } from '../types';
import { PermanentError, TransientError } from '../types';
import { IdleCache } from '../stores/idle-cache';
import { MatchBudget } from '../stores/match-budget';
import { hasWildcards, keyPattern, literalFor } from './patterns';
import { recordCall } from '../stores/trail';
import { reverification, verifiedOutcome } from '../stores/verification';

/** Credentials of a Redis account (see accountSecretSchemas.REDIS). */
export interface RedisSecrets {
  host: string;
  port?: number;
  username?: string;
  password?: string;
  database?: number;
  tls?: boolean;
}

type RedisClient = ReturnType<typeof redisClientFor>;
type RedisContext = Pick<DriverContext<RedisConfig>, 'resolveHost' | 'secrets' | 'config' | 'trail' | 'identifier'>;

const SCAN_COUNT = 500;
const UNLINK_BATCH = 500;

/** Connected clients per destination, closed after 10 s without use. */
const clients = new IdleCache<Promise<RedisClient>>(async (client) => (await client).destroy(), 10_000);

function classifyRedisError(error: unknown): TransientError | PermanentError {
  if (error instanceof TransientError || error instanceof PermanentError) return error;
  const message = (error as Error).message ?? String(error);
  // Authentication and permission answers do not change by retrying; everything else (connection, LOADING, BUSY) may.
  if (/WRONGPASS|NOAUTH|NOPERM|invalid password|WRONGTYPE|unknown command/i.test(message))
    return new PermanentError(`Redis: ${message}`);
  return new TransientError(`Redis: ${message}`);
}

function redisClientFor(secrets: RedisSecrets, address: string) {
  return createClient({
    socket: {
      host: address,
      port: secrets.port ?? 6379,
      connectTimeout: 10_000,
      reconnectStrategy: false,
      ...(secrets.tls
        ? { tls: true as const, servername: /^[\d.:]+$/.test(secrets.host) ? undefined : secrets.host }
        : {}),
    },
    username: secrets.username || undefined,
    password: secrets.password || undefined,
    database: secrets.database ?? 0,
    disableClientInfo: true,
  });
}

/** Connects to the SSRF-checked address (TLS server name stays the configured host). */
async function withRedis<T>(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
  use: (client: RedisClient) => Promise<T>,
): Promise<T> {
  const secrets = ctx.secrets as RedisSecrets | null;
  if (!secrets?.host) throw new PermanentError('This integration needs a Redis account');
  const address = await ctx.resolveHost(secrets.host);
  const create = async () => {
    const client = redisClientFor(secrets, address);
    client.on('error', () => {});
    await client.connect();
    // A cluster spreads keys over nodes, and SCAN sees one node's: the rest would be left while
    // the request reports SUCCESS. Refused, with the reason.
    if (/^cluster_enabled:1\b/m.test(await client.info('cluster'))) {
      client.destroy();
      throw new PermanentError(
        'Redis: this server runs in cluster mode, where a scan sees only one node; connect a standalone or replicated Redis',
      );
    }
    return client;
  };
  const key = IdleCache.key([address, secrets]);
  try {
    return await clients.with(
      key,
      () => create(),
      async (connecting) => {
        const client = await connecting;
        if (!client.isReady) throw new TransientError('Redis: connection closed');
        return use(client);
      },
    );
  } catch (error) {
    // A client that failed to connect or lost its connection is not kept.
    await clients.evict(key);
    throw classifyRedisError(error);
  }
}

/** Keys matching a `keys` rule, by SCAN (never KEYS); going over the request's budget is a permanent failure. */
async function matchingKeys(
  client: RedisClient,
  ctx: RedisContext,
  rule: Extract<RedisRule, { kind: 'keys' }>,
  budget: MatchBudget,
): Promise<string[]> {
  if (!hasWildcards(rule.pattern)) {
    const key = literalFor(rule.pattern, ctx.identifier);
    const exists = await recordCall(
      ctx.trail,
      `EXISTS ${rule.pattern}`,
      () => client.exists(key),
      (n) => n,
    );
    budget.check(exists, rule.pattern);
    return exists ? [key] : [];
  }
  const pattern = keyPattern(rule.pattern, ctx.identifier);
  return recordCall(
    ctx.trail,
    `SCAN MATCH ${rule.pattern} COUNT ${SCAN_COUNT}`,
    async () => {
      const keys = new Set<string>();
      let cursor = '0';
      do {
        const [next, batch] = (await client.sendCommand([
          'SCAN',
          cursor,
          'MATCH',
          pattern,
          'COUNT',
          String(SCAN_COUNT),
        ])) as [string, string[]];
        cursor = next;
        for (const k of batch) keys.add(k);
        budget.check(keys.size, rule.pattern);
      } while (cursor !== '0');
      return [...keys];
    },
    (keys) => keys.length,
  );
}

const ruleLabel = (rule: RedisRule) =>
  rule.kind === 'keys'
    ? `keys ${rule.pattern}`
    : rule.kind === 'hash_field'
      ? `hash field ${rule.key} ${rule.field}`
      : `member ${rule.key} ${rule.member}`;

/** How many keys, fields or members each rule finds for the identifier now. */
async function pending(
  client: RedisClient,
  ctx: RedisContext,
): Promise<{ rule: RedisRule; keys: string[]; count: number }[]> {
  const results = [];
  // maxKeys bounds the whole request: every keys rule takes from what the earlier ones left.
  const budget = new MatchBudget(ctx.config.maxKeys, 'keys');
  for (const rule of ctx.config.rules) {
    if (rule.kind === 'keys') {
      const keys = await matchingKeys(client, ctx, rule, budget);
      budget.take(keys.length);
      results.push({ rule, keys, count: keys.length });
    } else if (rule.kind === 'hash_field') {
      const key = literalFor(rule.key, ctx.identifier);
      const exists = await recordCall(
        ctx.trail,
        `HEXISTS ${rule.key} ${rule.field}`,
        () => client.hExists(key, literalFor(rule.field, ctx.identifier)),
        (n) => Number(n),
      );
      results.push({ rule, keys: [key], count: Number(exists) });
    } else {
      const key = literalFor(rule.key, ctx.identifier);
      const member = literalFor(rule.member, ctx.identifier);
      const type = await client.type(key);
      const found =
        type === 'zset'
          ? await recordCall(
              ctx.trail,
              `ZSCORE ${rule.key} ${rule.member}`,
              async () => ((await client.zScore(key, member)) === null ? 0 : 1),
              (n) => n,
            )
          : await recordCall(
              ctx.trail,
              `SISMEMBER ${rule.key} ${rule.member}`,
              async () => (type === 'set' ? Number(await client.sIsMember(key, member)) : 0),
              (n) => n,
            );
      results.push({ rule, keys: [key], count: found });
    }
  }
  return results;
}

/** The dry run: what each rule would remove, counted, nothing changed. */
export async function redisDryRun(ctx: RedisContext) {
  return withRedis(ctx, async (client) =>
    (await pending(client, ctx)).map(({ rule, count }) => ({
      rule: ruleLabel(rule),
      table: rule.kind === 'keys' ? rule.pattern : rule.key,
      action: 'delete',
      rows: count,
    })),
  );
}

/** Keys, fields and members per rule that still match: the proof of a deletion (SCAN again). */
async function remainingData(client: RedisClient, ctx: RedisContext): Promise<Record<string, number>> {
  const remaining: Record<string, number> = {};
  for (const { rule, count } of await pending(client, ctx)) remaining[ruleLabel(rule)] = count;
  return remaining;
}

/** The deletion's proof again, read-only, some time after SUCCESS (re-verification). */
export async function redisReverify(ctx: RedisContext): Promise<ReverifyResult> {
  return withRedis(ctx, async (client) => reverification(await remainingData(client, ctx), 'keys, fields or members'));
}

/** UNLINK the matching keys (in batches), HDEL / SREM / ZREM the fields and members, then SCAN again as the proof. */
export async function redisDeleteAndVerify(ctx: RedisContext): Promise<Outcome> {
  return withRedis(ctx, async (client) => {
    const changed: Record<string, number> = {};
    for (const { rule, keys, count } of await pending(client, ctx)) {
      let removed = 0;
      if (count > 0 && rule.kind === 'keys') {
        for (let i = 0; i < keys.length; i += UNLINK_BATCH) {
          const batch = keys.slice(i, i + UNLINK_BATCH);
          removed += await recordCall(
            ctx.trail,
            `UNLINK (${batch.length} keys of ${rule.pattern})`,
            () => client.unlink(batch),
            (n) => n,
          );
        }
      } else if (count > 0 && rule.kind === 'hash_field') {
        removed = await recordCall(
          ctx.trail,
          `HDEL ${rule.key} ${rule.field}`,
          () => client.hDel(keys[0]!, literalFor(rule.field, ctx.identifier)),
          (n) => n,
        );
      } else if (count > 0 && rule.kind === 'set_member') {
        const member = literalFor(rule.member, ctx.identifier);
        removed =
          (await client.type(keys[0]!)) === 'zset'
            ? await recordCall(
                ctx.trail,
                `ZREM ${rule.key} ${rule.member}`,
                () => client.zRem(keys[0]!, member),
                (n) => n,
              )
            : await recordCall(
                ctx.trail,
                `SREM ${rule.key} ${rule.member}`,
                () => client.sRem(keys[0]!, member),
                (n) => n,
              );
      }
      changed[ruleLabel(rule)] = removed;
    }
    const remaining = await remainingData(client, ctx);
    return verifiedOutcome(changed, remaining, {
      stillThere: 'data still matching',
      done: (total) => `${total} key(s), field(s) or member(s) removed; verified that nothing matching remains`,
    });
  });
}

export async function redisTestConnection(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
): Promise<{ ok: boolean; message: string }> {
  try {
    return await withRedis(ctx, async (client) => {
      const info = await client.info('server');
      const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
      return { ok: true, message: `Connected: Redis ${version}` };
    });
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** Open clients (tests check that they close when idle). */
export const openRedisClients = () => clients.size;
export const closeRedisClients = () => clients.closeAll();
