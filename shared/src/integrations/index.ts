import { z } from 'zod';
import type { IntegrationType } from '../statuses';
import type { AccountType } from './accounts';
import { INTEGRATION_TYPE_LABELS as LABEL } from './labels';
import { amplitudeConfigSchema } from './amplitude';
import { googleAnalyticsConfigSchema } from './google-analytics';
import { mixpanelConfigSchema } from './mixpanel';
import { posthogConfigSchema } from './posthog';
import { dynamoConfigSchema, s3ConfigSchema } from './object-stores';
import { mysqlConfigSchema, postgresConfigSchema } from './postgres';
import { redisConfigSchema } from './redis';
import { segmentConfigSchema } from './segment';
import { hubspotConfigSchema } from './hubspot';
import { zendeskConfigSchema } from './zendesk';
import { intercomConfigSchema } from './intercom';
import { mailchimpConfigSchema } from './mailchimp';
import { sendgridConfigSchema } from './sendgrid';
import { auth0ConfigSchema } from './auth0';
import { brazeConfigSchema } from './braze';
import { klaviyoConfigSchema } from './klaviyo';
import { customerioConfigSchema } from './customerio';
import { stripeConfigSchema } from './stripe';
import { webhookConfigSchema } from './webhook';
import { manualConfigSchema } from './manual';
import { bigqueryConfigSchema } from './bigquery';

export * from './accounts';
export * from './postgres';
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
export * from './customerio';
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
export * from './bigquery';

/**
 * Static facts about each integration type, for forms and for the engine. Adding a
 * connector: its folder (`shared/src/integrations/<vendor>.ts` for the configuration,
 * `server/src/integrations/<vendor>/` for the driver, `server/src/test/fakes/<vendor>.ts`)
 * and one line in each registry; these registries are total, so the compiler names any
 * one that is missing.
 */
export interface IntegrationTypeInfo {
  type: IntegrationType;
  label: string;
  accountTypes: readonly AccountType[];
  /** False when the account is optional (webhooks without secrets). */
  accountRequired: boolean;
  configSchema: z.ZodType;
}

export const integrationTypeInfo: Record<IntegrationType, IntegrationTypeInfo> = {
  WEBHOOK: {
    type: 'WEBHOOK',
    label: LABEL.WEBHOOK,
    accountTypes: ['KEY_VALUE'],
    accountRequired: false,
    configSchema: webhookConfigSchema,
  },
  POSTGRES: {
    type: 'POSTGRES',
    label: LABEL.POSTGRES,
    accountTypes: ['DATABASE'],
    accountRequired: true,
    configSchema: postgresConfigSchema,
  },
  // Mixpanel's GDPR token is a long-lived bearer token pasted from its settings (no OAuth flow).
  MIXPANEL: {
    type: 'MIXPANEL',
    label: LABEL.MIXPANEL,
    accountTypes: ['OAUTH', 'API_KEY'],
    accountRequired: true,
    configSchema: mixpanelConfigSchema,
  },
  AMPLITUDE: {
    type: 'AMPLITUDE',
    label: LABEL.AMPLITUDE,
    accountTypes: ['API_KEY_SECRET'],
    accountRequired: true,
    configSchema: amplitudeConfigSchema,
  },
  SEGMENT: {
    type: 'SEGMENT',
    label: LABEL.SEGMENT,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: segmentConfigSchema,
  },
  POSTHOG: {
    type: 'POSTHOG',
    label: LABEL.POSTHOG,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: posthogConfigSchema,
  },
  GOOGLE_ANALYTICS: {
    type: 'GOOGLE_ANALYTICS',
    label: LABEL.GOOGLE_ANALYTICS,
    accountTypes: ['OAUTH'],
    accountRequired: true,
    configSchema: googleAnalyticsConfigSchema,
  },
  // A secret key, or a restricted key with write access to customers.
  STRIPE: {
    type: 'STRIPE',
    label: LABEL.STRIPE,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: stripeConfigSchema,
  },
  // A private app access token with crm.objects.contacts.read/write.
  HUBSPOT: {
    type: 'HUBSPOT',
    label: LABEL.HUBSPOT,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: hubspotConfigSchema,
  },
  // An admin's API token; the admin's email is part of the configuration.
  ZENDESK: {
    type: 'ZENDESK',
    label: LABEL.ZENDESK,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: zendeskConfigSchema,
  },
  // An access token of an Intercom app (Developer Hub) with read and write access to contacts.
  INTERCOM: {
    type: 'INTERCOM',
    label: LABEL.INTERCOM,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: intercomConfigSchema,
  },
  // An API key (it ends in the account's data center, such as -us6).
  MAILCHIMP: {
    type: 'MAILCHIMP',
    label: LABEL.MAILCHIMP,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: mailchimpConfigSchema,
  },
  // An API key with Marketing (contacts) access.
  SENDGRID: {
    type: 'SENDGRID',
    label: LABEL.SENDGRID,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: sendgridConfigSchema,
  },
  // A machine-to-machine application: client id (API key) and client secret, with read:users and delete:users.
  AUTH0: {
    type: 'AUTH0',
    label: 'Auth0',
    accountTypes: ['API_KEY_SECRET'],
    accountRequired: true,
    configSchema: auth0ConfigSchema,
  },
  // A REST API key with the users.delete and users.export.ids permissions.
  BRAZE: {
    type: 'BRAZE',
    label: LABEL.BRAZE,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: brazeConfigSchema,
  },
  // A private API key with profiles:read and data-privacy:write scopes.
  KLAVIYO: {
    type: 'KLAVIYO',
    label: LABEL.KLAVIYO,
    accountTypes: ['API_KEY'],
    accountRequired: true,
    configSchema: klaviyoConfigSchema,
  },
  // The Track API key (API key) and an App API key (secret key); the Site ID is part of the configuration.
  CUSTOMERIO: {
    type: 'CUSTOMERIO',
    label: LABEL.CUSTOMERIO,
    accountTypes: ['API_KEY_SECRET'],
    accountRequired: true,
    configSchema: customerioConfigSchema,
  },
  MYSQL: {
    type: 'MYSQL',
    label: LABEL.MYSQL,
    accountTypes: ['DATABASE'],
    accountRequired: true,
    configSchema: mysqlConfigSchema,
  },
  REDIS: {
    type: 'REDIS',
    label: LABEL.REDIS,
    accountTypes: ['REDIS'],
    accountRequired: true,
    configSchema: redisConfigSchema,
  },
  S3: { type: 'S3', label: LABEL.S3, accountTypes: ['AWS'], accountRequired: true, configSchema: s3ConfigSchema },
  DYNAMODB: {
    type: 'DYNAMODB',
    label: LABEL.DYNAMODB,
    accountTypes: ['AWS'],
    accountRequired: true,
    configSchema: dynamoConfigSchema,
  },
  // No credentials: its owners answer by hand through an emailed task link or the dashboard.
  MANUAL: {
    type: 'MANUAL',
    label: LABEL.MANUAL,
    accountTypes: [],
    accountRequired: false,
    configSchema: manualConfigSchema,
  },
  // A service account's JSON key; the project, the location and the rules are configuration.
  BIGQUERY: {
    type: 'BIGQUERY',
    label: LABEL.BIGQUERY,
    accountTypes: ['GOOGLE_SERVICE_ACCOUNT'],
    accountRequired: true,
    configSchema: bigqueryConfigSchema,
  },
};
