import { z } from 'zod';
import type { IntegrationType } from '../statuses';
import type { AccountType } from './accounts';
import { INTEGRATION_TYPE_LABELS as LABEL } from './labels';
import { amplitudeConfigSchema } from './amplitude';
import { googleAnalyticsConfigSchema } from './google-analytics';
import { mixpanelConfigSchema } from './mixpanel';
import { posthogConfigSchema } from './posthog';
import { postgresConfigSchema } from './postgres';
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
export * from './labels';

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
  WEBHOOK: { type: 'WEBHOOK', label: LABEL.WEBHOOK, accountTypes: ['KEY_VALUE'], accountRequired: false, configSchema: webhookConfigSchema },
  POSTGRES: { type: 'POSTGRES', label: LABEL.POSTGRES, accountTypes: ['DATABASE'], accountRequired: true, configSchema: postgresConfigSchema },
  // Mixpanel's GDPR token is a long-lived bearer token pasted from its settings (no OAuth flow).
  MIXPANEL: { type: 'MIXPANEL', label: LABEL.MIXPANEL, accountTypes: ['OAUTH', 'API_KEY'], accountRequired: true, configSchema: mixpanelConfigSchema },
  AMPLITUDE: { type: 'AMPLITUDE', label: LABEL.AMPLITUDE, accountTypes: ['API_KEY_SECRET'], accountRequired: true, configSchema: amplitudeConfigSchema },
  SEGMENT: { type: 'SEGMENT', label: LABEL.SEGMENT, accountTypes: ['API_KEY'], accountRequired: true, configSchema: segmentConfigSchema },
  POSTHOG: { type: 'POSTHOG', label: LABEL.POSTHOG, accountTypes: ['API_KEY'], accountRequired: true, configSchema: posthogConfigSchema },
  GOOGLE_ANALYTICS: { type: 'GOOGLE_ANALYTICS', label: LABEL.GOOGLE_ANALYTICS, accountTypes: ['OAUTH'], accountRequired: true, configSchema: googleAnalyticsConfigSchema },
};

