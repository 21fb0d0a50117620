import type { DynamoConfig } from '@shared/integrations/object-stores';
import type { Driver, Outcome } from '../types';
import { nextWindowOpening } from '../stores/trail';
import { dynamoDeleteAndVerify, dynamoTestConnection } from './execute';

/** DynamoDB: items by partition key or secondary index, BatchWriteItem, verified by querying again. */
export const dynamoDriver: Driver<DynamoConfig> = {
  type: 'DYNAMODB',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds to minutes, or at the next maintenance window',
  async requestDeletion(ctx): Promise<Outcome> {
    const opens = nextWindowOpening(ctx.config.maintenanceWindow, ctx.now);
    if (opens) return { kind: 'deferred', until: opens, message: `Scheduled for the maintenance window at ${opens.toISOString()}` };
    return dynamoDeleteAndVerify(ctx);
  },
  testConnection: (ctx) => dynamoTestConnection(ctx),
};
