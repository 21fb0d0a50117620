import { z } from 'zod';
import { outboundUrl } from './outbound-url';
import { defineConnector } from './connector';

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

export const brazeConnector = defineConnector({
  type: 'BRAZE',
  label: 'Braze',
  // A REST API key with the users.delete and users.export.ids permissions.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: brazeConfigSchema,
  catalogue: {
    category: 'Marketing',
    deletes: 'the user profiles of the external id, Braze id or email',
    credentials: "REST API key with users.delete and users.export.ids; the instance's REST endpoint is configuration",
    capabilities: { status: true, cancel: false, verify: true },
    notes: 'users/delete in batches of 50, then the export is polled until no profile is left',
    completion: 'minutes',
    docsUrl: 'https://www.braze.com/docs/api/endpoints/user_data/post_user_delete',
  },
});
