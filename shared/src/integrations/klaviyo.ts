import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const KLAVIYO_API_HOST = 'https://a.klaviyo.com';

/** The Klaviyo API revision our requests pin (the klaviyo-api SDK's). */
export const KLAVIYO_REVISION = '2026-07-15';

export const klaviyoConfigSchema = z.object({
  /** Whether the request identifier is the profile's email or its Klaviyo profile id. */
  identifierType: z.enum(['email', 'profile_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type KlaviyoConfig = z.infer<typeof klaviyoConfigSchema>;

export const klaviyoConnector = defineConnector({
  type: 'KLAVIYO',
  label: 'Klaviyo',
  // A private API key with profiles:read and data-privacy:write scopes.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: klaviyoConfigSchema,
  catalogue: {
    category: 'Marketing',
    deletes: 'the profile (by email or id) and all its data',
    credentials: 'private API key with profiles:read and data-privacy:write',
    capabilities: { status: true, cancel: false, verify: true },
    notes: 'a data-privacy deletion job; the lookup is polled until no profile is left',
    completion: 'minutes to hours',
    docsUrl: 'https://developers.klaviyo.com/en/reference/request_profile_deletion',
  },
});
