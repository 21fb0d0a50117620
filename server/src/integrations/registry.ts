import type { IntegrationType } from '@shared/statuses';
import { amplitudeDriver } from './amplitude/driver';
import { dynamoDriver } from './dynamodb/driver';
import { googleAnalyticsDriver } from './google-analytics/driver';
import { mixpanelDriver } from './mixpanel/driver';
import { mysqlDriver } from './mysql/driver';
import { postgresDriver } from './postgres/driver';
import { posthogDriver } from './posthog/driver';
import { redisDriver } from './redis/driver';
import { s3Driver } from './s3/driver';
import { segmentDriver } from './segment/driver';
import type { Driver } from './types';
import { webhookDriver } from './webhook/driver';

/** Every destination the engine can drive, by integration type. */
export const drivers: Partial<Record<IntegrationType, Driver>> = {
  WEBHOOK: webhookDriver,
  POSTGRES: postgresDriver,
  MIXPANEL: mixpanelDriver,
  AMPLITUDE: amplitudeDriver,
  SEGMENT: segmentDriver,
  POSTHOG: posthogDriver,
  GOOGLE_ANALYTICS: googleAnalyticsDriver,
  MYSQL: mysqlDriver,
  REDIS: redisDriver,
  S3: s3Driver,
  DYNAMODB: dynamoDriver,
};

export function driverFor(type: IntegrationType): Driver | undefined {
  return drivers[type];
}
