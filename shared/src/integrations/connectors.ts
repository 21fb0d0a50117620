import { webhookConnector } from './webhook';
import { postgresConnector, mysqlConnector } from './postgres';
import { mixpanelConnector } from './mixpanel';
import { amplitudeConnector } from './amplitude';
import { segmentConnector } from './segment';
import { posthogConnector } from './posthog';
import { googleAnalyticsConnector } from './google-analytics';
import { stripeConnector } from './stripe';
import { iterableConnector } from './iterable';
import { shopifyConnector } from './shopify';
import { salesforceConnector } from './salesforce';
import { hubspotConnector } from './hubspot';
import { zendeskConnector } from './zendesk';
import { intercomConnector } from './intercom';
import { mailchimpConnector } from './mailchimp';
import { sendgridConnector } from './sendgrid';
import { auth0Connector } from './auth0';
import { brazeConnector } from './braze';
import { klaviyoConnector } from './klaviyo';
import { customerioConnector } from './customerio';
import { fullstoryConnector } from './fullstory';
import { heapConnector } from './heap';
import { hotjarConnector } from './hotjar';
import { redisConnector } from './redis';
import { s3Connector, dynamodbConnector } from './object-stores';
import { freshdeskConnector } from './freshdesk';
import { pipedriveConnector } from './pipedrive';
import { chargebeeConnector } from './chargebee';
import { onesignalConnector } from './onesignal';
import { manualConnector } from './manual';
import { snowflakeConnector } from './snowflake';
import { bigqueryConnector } from './bigquery';

/**
 * Every connector, one line each: the integration types, their labels, catalogue and
 * configuration schemas are derived from this list, and the server's registries of drivers
 * and stand-ins are total over its types (a connector without either does not compile).
 * The order is the order of the API's enum, the README table and the dashboard's picker.
 */
export const CONNECTORS = [
  webhookConnector,
  postgresConnector,
  mixpanelConnector,
  amplitudeConnector,
  segmentConnector,
  posthogConnector,
  googleAnalyticsConnector,
  stripeConnector,
  iterableConnector,
  shopifyConnector,
  salesforceConnector,
  hubspotConnector,
  zendeskConnector,
  intercomConnector,
  mailchimpConnector,
  sendgridConnector,
  auth0Connector,
  brazeConnector,
  klaviyoConnector,
  customerioConnector,
  mysqlConnector,
  redisConnector,
  s3Connector,
  dynamodbConnector,
  snowflakeConnector,
  fullstoryConnector,
  heapConnector,
  hotjarConnector,
  freshdeskConnector,
  pipedriveConnector,
  chargebeeConnector,
  onesignalConnector,
  manualConnector,
  bigqueryConnector,
] as const;

export type IntegrationType = (typeof CONNECTORS)[number]['type'];

/** The integration types, stored as text and checked against this list on every write. */
export const INTEGRATION_TYPES = CONNECTORS.map((connector) => connector.type) as [
  IntegrationType,
  ...IntegrationType[],
];

export function isIntegrationType(value: string): value is IntegrationType {
  return (INTEGRATION_TYPES as readonly string[]).includes(value);
}

/**
 * A stored integration type read back: checked against the list, so a row whose connector is
 * no longer registered fails with its name rather than somewhere inside the engine.
 */
export function storedIntegrationType(value: string): IntegrationType {
  if (!isIntegrationType(value)) throw new Error(`No connector is registered for the integration type ${value}`);
  return value;
}

/** Each connector's definition by its type. */
export function connectorsByType<T>(pick: (connector: (typeof CONNECTORS)[number]) => T): Record<IntegrationType, T> {
  return Object.fromEntries(CONNECTORS.map((connector) => [connector.type, pick(connector)])) as Record<
    IntegrationType,
    T
  >;
}
