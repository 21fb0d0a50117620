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
import { stripeDriver } from './stripe/driver';
import { iterableDriver } from './iterable/driver';
import { shopifyDriver } from './shopify/driver';
import { salesforceDriver } from './salesforce/driver';
import { customerioDriver } from './customerio/driver';
import { fullstoryDriver } from './fullstory/driver';
import { heapDriver } from './heap/driver';
import { hotjarDriver } from './hotjar/driver';
import { klaviyoDriver } from './klaviyo/driver';
import { brazeDriver } from './braze/driver';
import { auth0Driver } from './auth0/driver';
import { sendgridDriver } from './sendgrid/driver';
import { mailchimpDriver } from './mailchimp/driver';
import { intercomDriver } from './intercom/driver';
import { zendeskDriver } from './zendesk/driver';
import { hubspotDriver } from './hubspot/driver';
import { freshdeskDriver } from './freshdesk/driver';
import { pipedriveDriver } from './pipedrive/driver';
import { chargebeeDriver } from './chargebee/driver';
import { onesignalDriver } from './onesignal/driver';
import type { Driver } from './types';
import { webhookDriver } from './webhook/driver';
import { manualDriver } from './manual/driver';
import { snowflakeDriver } from './snowflake/driver';
import { bigqueryDriver } from './bigquery/driver';

/**
 * Every destination the engine can drive, by integration type (the types of
 * shared/src/integrations/connectors.ts): a connector is its shared file, its folder, one line
 * here and one in fakes.ts (README, "Adding a connector").
 */
const drivers: Record<IntegrationType, Driver> = {
  WEBHOOK: webhookDriver,
  POSTGRES: postgresDriver,
  MIXPANEL: mixpanelDriver,
  AMPLITUDE: amplitudeDriver,
  SEGMENT: segmentDriver,
  POSTHOG: posthogDriver,
  GOOGLE_ANALYTICS: googleAnalyticsDriver,
  STRIPE: stripeDriver,
  ITERABLE: iterableDriver,
  SHOPIFY: shopifyDriver,
  SALESFORCE: salesforceDriver,
  HUBSPOT: hubspotDriver,
  ZENDESK: zendeskDriver,
  INTERCOM: intercomDriver,
  MAILCHIMP: mailchimpDriver,
  SENDGRID: sendgridDriver,
  AUTH0: auth0Driver,
  BRAZE: brazeDriver,
  KLAVIYO: klaviyoDriver,
  CUSTOMERIO: customerioDriver,
  FULLSTORY: fullstoryDriver,
  HEAP: heapDriver,
  HOTJAR: hotjarDriver,
  FRESHDESK: freshdeskDriver,
  PIPEDRIVE: pipedriveDriver,
  CHARGEBEE: chargebeeDriver,
  ONESIGNAL: onesignalDriver,
  MYSQL: mysqlDriver,
  REDIS: redisDriver,
  S3: s3Driver,
  DYNAMODB: dynamoDriver,
  SNOWFLAKE: snowflakeDriver,
  MANUAL: manualDriver,
  BIGQUERY: bigqueryDriver,
};

export function driverFor(type: IntegrationType): Driver {
  return drivers[type];
}

/** Closes what every driver keeps open between calls (customer database pools, store clients): part of shutdown. */
export async function closeDrivers(): Promise<void> {
  await Promise.all(Object.values(drivers).map((driver) => driver.close?.().catch(() => {})));
}
