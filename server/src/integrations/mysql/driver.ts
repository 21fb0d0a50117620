import type { MysqlConfig } from '@shared/integrations/postgres';
import type { Driver, Outcome } from '../types';
import { nextWindowOpening } from '../stores/trail';
import { mysqlDeleteAndVerify, mysqlTestConnection } from './execute';

/** MySQL and MariaDB: the SQL rules in one transaction, children first, verified after the commit. */
export const mysqlDriver: Driver<MysqlConfig> = {
  type: 'MYSQL',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds, or at the next maintenance window',
  async requestDeletion(ctx): Promise<Outcome> {
    const opens = nextWindowOpening(ctx.config.maintenanceWindow, ctx.now);
    if (opens) return { kind: 'deferred', until: opens, message: `Scheduled for the maintenance window at ${opens.toISOString()}` };
    return mysqlDeleteAndVerify(ctx);
  },
  testConnection: (ctx) => mysqlTestConnection(ctx),
};
