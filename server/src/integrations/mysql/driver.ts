import type { MysqlConfig } from '@shared/integrations/postgres';
import type { Driver, Outcome } from '../types';
import { nextWindowOpening, statementsOf } from '../stores/trail';
import {
  discoverMysql,
  mysqlDeleteAndVerify,
  mysqlDryRun,
  mysqlReverify,
  mysqlTestConnection,
  validateMysqlRules,
} from './execute';
import { closeMysqlPools } from './sessions';

/** MySQL and MariaDB: the SQL rules in one transaction, children first, verified after the commit. */
export const mysqlDriver: Driver<MysqlConfig> = {
  type: 'MYSQL',
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
    return mysqlDeleteAndVerify(ctx);
  },
  validateConfig: (ctx) => validateMysqlRules(ctx),
  discover: (ctx) => discoverMysql(ctx),
  dryRun: async (ctx) => ({ rules: await mysqlDryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => mysqlReverify(ctx),
  testConnection: (ctx) => mysqlTestConnection(ctx),
  close: closeMysqlPools,
};
