import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** Mixpanel's GDPR API hosts by data residency. */
export const MIXPANEL_HOSTS = {
  US: 'https://mixpanel.com',
  EU: 'https://eu.mixpanel.com',
  IN: 'https://in.mixpanel.com',
} as const;

export const mixpanelConfigSchema = z.object({
  region: z.enum(['US', 'EU', 'IN']).default('US'),
  /** The project token (not secret: it ships in client-side tracking code); selects the project. */
  projectToken: z
    .string()
    .trim()
    .min(1, 'Required')
    .max(200)
    .regex(/^[A-Za-z0-9_-]+$/, 'A Mixpanel project token has only letters and digits'),
  complianceType: z.enum(['GDPR', 'CCPA']).default('GDPR'),
  /** The request identifier is sent as a Mixpanel distinct_id. */
  identifierType: z.enum(['distinct_id']).default('distinct_id'),
  baseUrl: baseUrlSchema,
});
export type MixpanelConfig = z.infer<typeof mixpanelConfigSchema>;

export const mixpanelConnector = defineConnector({
  type: 'MIXPANEL',
  label: 'Mixpanel',
  // Mixpanel's GDPR token is a long-lived bearer token pasted from its settings (no OAuth flow).
  accountTypes: ['OAUTH', 'API_KEY'],
  accountRequired: true,
  configSchema: mixpanelConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes: 'all events and the user profile of the distinct id in one project',
    credentials: 'GDPR OAuth token (or API key); the project token is configuration',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      "a deletion task filed under the request's regulation (GDPR or CCPA; a custom policy's under the integration's compliance type), polled; a 409 (Mixpanel already deleting) follows the task it names, or asks again an hour later, never FAILED; creates one per second per project; cancel while PENDING/STAGING",
    completion: 'days to a few weeks',
    docsUrl: 'https://developer.mixpanel.com/reference/create-deletion',
  },
});
