import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** OneSignal's API host (the official SDK's server). */
export const ONESIGNAL_API_HOST = 'https://api.onesignal.com';

export const onesignalConfigSchema = z.object({
  /** The app's id (Settings → Keys & IDs), a UUID. */
  appId: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'The OneSignal App ID, a UUID'),
  /**
   * The alias the request identifier is a value of: `external_id` (your user id, the default),
   * `onesignal_id`, or a custom alias label of the app.
   */
  aliasLabel: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'An alias label such as external_id or onesignal_id')
    .default('external_id'),
  baseUrl: baseUrlSchema,
});
export type OnesignalConfig = z.infer<typeof onesignalConfigSchema>;

export const onesignalConnector = defineConnector({
  type: 'ONESIGNAL',
  label: 'OneSignal',
  // The app's REST API key; the App ID is configuration.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: onesignalConfigSchema,
  catalogue: {
    category: 'Marketing',
    deletes:
      'the user named by an alias (external_id by default, onesignal_id or a custom alias) with all its subscriptions, properties and aliases',
    credentials: "the app's REST API key (Authorization: Key); the App ID is configuration",
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'look up, delete, then the lookup is polled until it answers 404; no lookup by an email that is not an alias; a 429 waits Retry-After, else 100 s',
    completion: 'seconds',
    docsUrl: 'https://documentation.onesignal.com/reference/delete-user',
  },
});
