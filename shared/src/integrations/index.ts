import { z } from 'zod';
import type { IntegrationType } from '../statuses';
import { amplitudeConfigSchema } from './amplitude';
import { googleAnalyticsConfigSchema } from './google-analytics';
import { mixpanelConfigSchema } from './mixpanel';
import { posthogConfigSchema } from './posthog';
import { dynamoConfigSchema, s3ConfigSchema } from './object-stores';
import { mysqlConfigSchema, postgresConfigSchema } from './postgres';
import { redisConfigSchema } from './redis';
import { segmentConfigSchema } from './segment';
import { webhookConfigSchema } from './webhook';

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
export * from './redis';
export * from './object-stores';

/** Static facts about each integration type, for forms and for the engine. */
export interface IntegrationTypeInfo {
  type: IntegrationType;
  label: string;
  accountTypes: readonly ('API_KEY' | 'API_KEY_SECRET' | 'OAUTH' | 'DATABASE' | 'KEY_VALUE' | 'REDIS' | 'AWS')[];
  /** False when the account is optional (webhooks without secrets). */
  accountRequired: boolean;
  configSchema: z.ZodType;
}

export const integrationTypeInfo: Partial<Record<IntegrationType, IntegrationTypeInfo>> = {
  WEBHOOK: { type: 'WEBHOOK', label: 'Webhook', accountTypes: ['KEY_VALUE'], accountRequired: false, configSchema: webhookConfigSchema },
  POSTGRES: { type: 'POSTGRES', label: 'PostgreSQL', accountTypes: ['DATABASE'], accountRequired: true, configSchema: postgresConfigSchema },
  // Mixpanel's GDPR token is a long-lived bearer token pasted from its settings (no OAuth flow).
  MIXPANEL: { type: 'MIXPANEL', label: 'Mixpanel', accountTypes: ['OAUTH', 'API_KEY'], accountRequired: true, configSchema: mixpanelConfigSchema },
  AMPLITUDE: { type: 'AMPLITUDE', label: 'Amplitude', accountTypes: ['API_KEY_SECRET'], accountRequired: true, configSchema: amplitudeConfigSchema },
  SEGMENT: { type: 'SEGMENT', label: 'Segment', accountTypes: ['API_KEY'], accountRequired: true, configSchema: segmentConfigSchema },
  POSTHOG: { type: 'POSTHOG', label: 'PostHog', accountTypes: ['API_KEY'], accountRequired: true, configSchema: posthogConfigSchema },
  GOOGLE_ANALYTICS: { type: 'GOOGLE_ANALYTICS', label: 'Google Analytics 4', accountTypes: ['OAUTH'], accountRequired: true, configSchema: googleAnalyticsConfigSchema },
  MYSQL: { type: 'MYSQL', label: 'MySQL / MariaDB', accountTypes: ['DATABASE'], accountRequired: true, configSchema: mysqlConfigSchema },
  REDIS: { type: 'REDIS', label: 'Redis', accountTypes: ['REDIS'], accountRequired: true, configSchema: redisConfigSchema },
  S3: { type: 'S3', label: 'Amazon S3', accountTypes: ['AWS'], accountRequired: true, configSchema: s3ConfigSchema },
  DYNAMODB: { type: 'DYNAMODB', label: 'Amazon DynamoDB', accountTypes: ['AWS'], accountRequired: true, configSchema: dynamoConfigSchema },
};

