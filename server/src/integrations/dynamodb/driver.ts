import type { DynamoConfig } from '@shared/integrations/object-stores';
import type { DiscoveredTable, Driver } from '../types';
import { inMaintenanceWindow, statementsOf } from '../stores/trail';
import {
  closeDynamoClients,
  discoverDynamo,
  dynamoDeleteAndVerify,
  dynamoDryRun,
  dynamoReverify,
  dynamoTestConnection,
  validateDynamoConfig,
  type DynamoTableInfo,
} from './execute';

/** A DynamoDB table as discovery shows it: its key attributes as columns, its secondary indexes by name. */
function asDiscoveredTable(info: DynamoTableInfo): DiscoveredTable {
  const keys = [
    info.partitionKey,
    ...(info.sortKey ? [info.sortKey] : []),
    ...info.indexes.flatMap((i) => [i.partitionKey, ...(i.sortKey ? [i.sortKey] : [])]),
  ];
  const columns = [
    ...new Map(
      keys.map((k) => [
        k.name,
        { name: k.name, dataType: k.type, nullable: k !== info.partitionKey && k !== info.sortKey },
      ]),
    ).values(),
  ];
  return {
    schema: '',
    table: info.table,
    columns,
    keys: { partitionKey: info.partitionKey.name, sortKey: info.sortKey?.name },
    indexes: info.indexes.map((i) => ({
      name: i.name,
      kind: i.kind,
      partitionKey: i.partitionKey.name,
      sortKey: i.sortKey?.name,
    })),
  };
}

/** DynamoDB: items by partition key or secondary index, BatchWriteItem, verified by querying again. */
export const dynamoDriver: Driver<DynamoConfig> = {
  type: 'DYNAMODB',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds to minutes, or at the next maintenance window',
  requestDeletion: (ctx) => inMaintenanceWindow(ctx, () => dynamoDeleteAndVerify(ctx)),
  validateConfig: (ctx) => validateDynamoConfig(ctx),
  discover: async (ctx) => (await discoverDynamo(ctx)).map(asDiscoveredTable),
  dryRun: async (ctx) => ({ rules: await dynamoDryRun(ctx), statements: statementsOf(ctx.trail) }),
  reverify: (ctx) => dynamoReverify(ctx),
  testConnection: (ctx) => dynamoTestConnection(ctx),
  close: closeDynamoClients,
};
