import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
