import type { RedisConfig } from '@shared/integrations/redis';
import type { Driver } from '../types';
import { inMaintenanceWindow, statementsOf } from '../stores/trail';
import { closeRedisClients, redisDeleteAndVerify, redisDryRun, redisReverify, redisTestConnection } from './execute';

/** Redis: keys by template (SCAN + UNLINK), hash fields and set members, verified by scanning again. */
export const redisDriver: Driver<RedisConfig> = {
  type: 'REDIS',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds, or at the next maintenance window',
  requestDeletion: (ctx) => inMaintenanceWindow(ctx, () => redisDeleteAndVerify(ctx)),
  // Redis has no schema to discover or check rules against: a dry run shows what the templates reach.
  dryRun: async (ctx) => ({ rules: await redisDryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => redisReverify(ctx),
  testConnection: (ctx) => redisTestConnection(ctx),
  close: closeRedisClients,
};
