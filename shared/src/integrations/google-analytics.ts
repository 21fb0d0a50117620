import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
