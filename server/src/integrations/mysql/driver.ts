import type { MysqlConfig } from '@shared/integrations/postgres';
import type { Driver } from '../types';
import { inMaintenanceWindow, statementsOf } from '../stores/trail';
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
  requestDeletion: (ctx) => inMaintenanceWindow(ctx, () => mysqlDeleteAndVerify(ctx)),
  validateConfig: (ctx) => validateMysqlRules(ctx),
  discover: (ctx) => discoverMysql(ctx),
  dryRun: async (ctx) => ({ rules: await mysqlDryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => mysqlReverify(ctx),
  testConnection: (ctx) => mysqlTestConnection(ctx),
  close: closeMysqlPools,
};
