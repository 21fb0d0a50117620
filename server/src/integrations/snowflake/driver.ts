import type { SnowflakeConfig } from '@shared/integrations';
import type { Driver } from '../types';
import { inMaintenanceWindow, statementsOf } from '../stores/trail';
import {
  discoverSnowflake,
  snowflakeDeleteAndVerify,
  snowflakeDryRun,
  snowflakeReverify,
  snowflakeTestConnection,
  validateSnowflakeRules,
} from './execute';

/** Snowflake over its SQL API: the SQL rules, one statement each, verified after, with the Time Travel period stated. */
export const snowflakeDriver: Driver<SnowflakeConfig> = {
  type: 'SNOWFLAKE',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds to minutes, or at the next maintenance window',
  requestDeletion: (ctx) => inMaintenanceWindow(ctx, () => snowflakeDeleteAndVerify(ctx)),
  validateConfig: (ctx) => validateSnowflakeRules(ctx),
  discover: (ctx) => discoverSnowflake(ctx),
  dryRun: async (ctx) => ({ rules: await snowflakeDryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => snowflakeReverify(ctx),
  testConnection: (ctx) => snowflakeTestConnection(ctx),
};
