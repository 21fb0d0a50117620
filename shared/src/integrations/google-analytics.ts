import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const GOOGLE_ANALYTICS_ADMIN_HOST = 'https://analyticsadmin.googleapis.com';

/** The OAuth scope submitUserDeletion requires. */
export const GOOGLE_ANALYTICS_SCOPE = 'https://www.googleapis.com/auth/analytics.edit';

export const googleAnalyticsConfigSchema = z.object({
  /** The numeric GA4 property id (Admin > Property details). */
  propertyId: z
    .union([z.string(), z.number()])
    .transform((v) =>
      String(v)
        .trim()
        .replace(/^properties\//, ''),
    )
    .pipe(z.string().regex(/^\d{1,20}$/, 'A GA4 property id is a number, such as 123456789')),
  /** Which GA4 identifier the request identifier is. */
  identifierType: z.enum(['userId', 'clientId', 'appInstanceId']).default('userId'),
  baseUrl: baseUrlSchema,
});
export type GoogleAnalyticsConfig = z.infer<typeof googleAnalyticsConfigSchema>;

export const googleAnalyticsConnector = defineConnector({
  type: 'GOOGLE_ANALYTICS',
  label: 'Google Analytics 4',
  accountTypes: ['OAUTH'],
  accountRequired: true,
  configSchema: googleAnalyticsConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes: "the user's data in one GA4 property up to the request time (userId, clientId or appInstanceId)",
    credentials: 'Google OAuth grant with the analytics.edit scope',
    capabilities: { status: false, cancel: false, verify: false },
    notes: 'accepted = done (Google offers no status)',
    completion: "gone from reports within about 72 hours; purged from Google's servers about two months later",
    docsUrl:
      'https://developers.google.com/analytics/devguides/config/admin/v1/rest/v1alpha/properties/submitUserDeletion',
  },
});
