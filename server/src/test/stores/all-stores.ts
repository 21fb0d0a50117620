import { startDynalite } from './dynalite';
import { startMariaDb } from './mariadb';
import { startRedis } from './redis';
import { startS3rver } from './s3rver';

/** The four data stores at once (MariaDB, Redis, s3rver with `buckets`, dynalite), each on a free loopback port. */
export async function startAllStores(buckets: string[]) {
  const [mariadb, redis, s3, dynamo] = await Promise.all([
    startMariaDb(),
    startRedis(),
    startS3rver(buckets),
    startDynalite(),
  ]);
  return {
    mariadb,
    redis,
    s3,
    dynamo,
    stop: () => Promise.all([mariadb.stop(), redis.stop(), s3.stop(), dynamo.stop()]).then(() => undefined),
  };
}
