import { z } from 'zod';
import { baseUrlSchema } from './vendor';

export const KLAVIYO_API_HOST = 'https://a.klaviyo.com';

/** The Klaviyo API revision our requests pin (the klaviyo-api SDK's). */
export const KLAVIYO_REVISION = '2026-07-15';

export const klaviyoConfigSchema = z.object({
  /** Whether the request identifier is the profile's email or its Klaviyo profile id. */
  identifierType: z.enum(['email', 'profile_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type KlaviyoConfig = z.infer<typeof klaviyoConfigSchema>;
