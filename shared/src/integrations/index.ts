import { z } from 'zod';
import type { IntegrationType } from '../statuses';
import { postgresConfigSchema } from './postgres';
import { webhookConfigSchema } from './webhook';

export * from './accounts';
export * from './postgres';
export * from './webhook';

/** Static facts about each integration type, for forms and for the engine. */
export interface IntegrationTypeInfo {
  type: IntegrationType;
  label: string;
  accountTypes: readonly ('API_KEY' | 'API_KEY_SECRET' | 'OAUTH' | 'DATABASE' | 'KEY_VALUE')[];
  /** False when the account is optional (webhooks without secrets). */
  accountRequired: boolean;
  configSchema: z.ZodType;
}

export const integrationTypeInfo: Partial<Record<IntegrationType, IntegrationTypeInfo>> = {
  WEBHOOK: { type: 'WEBHOOK', label: 'Webhook', accountTypes: ['KEY_VALUE'], accountRequired: false, configSchema: webhookConfigSchema },
  POSTGRES: { type: 'POSTGRES', label: 'PostgreSQL', accountTypes: ['DATABASE'], accountRequired: true, configSchema: postgresConfigSchema },
};

