import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
