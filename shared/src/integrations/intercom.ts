import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

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

export const intercomConnector = defineConnector({
  type: 'INTERCOM',
  label: 'Intercom',
  // An access token of an Intercom app (Developer Hub) with read and write access to contacts.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: intercomConfigSchema,
  catalogue: {
    category: 'Customer support',
    deletes: 'the contacts with the email or external_id (or the contact id)',
    credentials: 'access token of an Intercom app (Bearer)',
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'search in the body, delete, a 404 on fetch is the proof; a search finding no one is repeated 5 minutes later (new contacts can take minutes to become searchable)',
    completion: 'seconds (minutes when the first search finds no one)',
    docsUrl: 'https://developers.intercom.com/docs/references/rest-api/api.intercom.io/contacts/deletecontact',
  },
});
