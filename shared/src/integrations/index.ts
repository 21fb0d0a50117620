import { connectorsByType } from './connectors';
import type { ConnectorDefinition } from './connector';
import type { IntegrationType } from './connectors';

export * from './accounts';
export * from './postgres';
export * from './snowflake';
export * from './webhook';
export * from './vendor';
export * from './mixpanel';
export * from './amplitude';
export * from './segment';
export * from './posthog';
export * from './google-analytics';
export * from './oauth';
export * from './catalogue';
export * from './stripe';
export * from './iterable';
export * from './shopify';
export * from './salesforce';
export * from './customerio';
export * from './fullstory';
export * from './heap';
export * from './hotjar';
export * from './klaviyo';
export * from './braze';
export * from './auth0';
export * from './sendgrid';
export * from './mailchimp';
export * from './intercom';
export * from './zendesk';
export * from './hubspot';
export * from './redis';
export * from './object-stores';
export * from './labels';
export * from './manual';
export * from './freshdesk';
export * from './pipedrive';
export * from './chargebee';
export * from './onesignal';
export * from './bigquery';

/**
 * Static facts about each integration type, for forms and for the engine: each connector's
 * definition (`shared/src/integrations/<vendor>.ts`), by type, from the list in `connectors.ts`.
 */
export type IntegrationTypeInfo = ConnectorDefinition<IntegrationType>;

export const integrationTypeInfo = connectorsByType<IntegrationTypeInfo>((connector) => connector);
