import { z } from 'zod';
import { baseUrlSchema } from './vendor';

/** Intercom API hosts by data region. */
export const INTERCOM_HOSTS = {
  US: 'https://api.intercom.io',
  EU: 'https://api.eu.intercom.io',
  AU: 'https://api.au.intercom.io',
} as const;

/** The Intercom API version our requests pin (the intercom-client SDK's default). */
export const INTERCOM_API_VERSION = '2.14';

export const intercomConfigSchema = z.object({
  region: z.enum(['US', 'EU', 'AU']).default('US'),
  /** What the request identifier is: the contact's email, your user id (external_id), or Intercom's contact id. */
  identifierType: z.enum(['email', 'external_id', 'contact_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type IntercomConfig = z.infer<typeof intercomConfigSchema>;
