import { z } from 'zod';
import { outboundUrl } from './outbound-url';

/** The REST endpoint of the workspace's Braze instance (Settings → APIs and Identifiers). */
export const brazeRestEndpointSchema = outboundUrl(
  z
    .string()
    .trim()
    .max(300)
    .regex(/^https?:\/\/[^\s/?#]+$/i, 'The REST endpoint of your Braze instance, such as https://rest.fra-01.braze.eu')
    .transform((url) => url.replace(/\/+$/, '')),
);

export const brazeConfigSchema = z.object({
  restEndpoint: brazeRestEndpointSchema,
  /** What the request identifier is in Braze: your external id, the Braze id, or the email. */
  identifierType: z.enum(['external_id', 'braze_id', 'email']).default('external_id'),
});
export type BrazeConfig = z.infer<typeof brazeConfigSchema>;
