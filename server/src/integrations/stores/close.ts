import { closeDynamoClients } from '../dynamodb/execute';
import { closeMysqlPools } from '../mysql/sessions';
import { closeSessions } from '../postgres/sessions';
import { closeRedisClients } from '../redis/execute';

/**
 * Closes every connection to customer data stores this process keeps (PostgreSQL and MySQL
 * pools, Redis and DynamoDB clients). Each also closes by itself once idle; this is for
 * shutdown, after the workers have finished or handed back their steps.
 */
export async function closeStoreConnections(): Promise<void> {
  await Promise.all([closeSessions(), closeMysqlPools(), closeRedisClients(), closeDynamoClients()]);
}
