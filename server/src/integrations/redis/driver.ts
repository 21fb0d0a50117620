import type { RedisConfig } from '@shared/integrations/redis';
import type { Driver, Outcome } from '../types';
import { nextWindowOpening, statementsOf } from '../stores/trail';
import { closeRedisClients, redisDeleteAndVerify, redisDryRun, redisReverify, redisTestConnection } from './execute';

/** Redis: keys by template (SCAN + UNLINK), hash fields and set members, verified by scanning again. */
export const redisDriver: Driver<RedisConfig> = {
  type: 'REDIS',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds, or at the next maintenance window',
  async requestDeletion(ctx): Promise<Outcome> {
    const opens = nextWindowOpening(ctx.config.maintenanceWindow, ctx.now);
    if (opens)
      return {
        kind: 'deferred',
        until: opens,
        message: `Scheduled for the maintenance window at ${opens.toISOString()}`,
      };
    return redisDeleteAndVerify(ctx);
  },
  // Redis has no schema to discover or check rules against: a dry run shows what the templates reach.
  dryRun: async (ctx) => ({ rules: await redisDryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => redisReverify(ctx),
  testConnection: (ctx) => redisTestConnection(ctx),
  close: closeRedisClients,
};
