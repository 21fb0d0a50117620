import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const HUBSPOT_API_HOST = 'https://api.hubapi.com';

export const hubspotConfigSchema = z.object({
  /** Whether the request identifier is the contact's email or its HubSpot record id. */
  identifierType: z.enum(['email', 'contact_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type HubspotConfig = z.infer<typeof hubspotConfigSchema>;

export const hubspotConnector = defineConnector({
  type: 'HUBSPOT',
  label: 'HubSpot',
  // A private app access token with crm.objects.contacts.read/write.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: hubspotConfigSchema,
  catalogue: {
    category: 'CRM',
    deletes: 'the contact and its content (GDPR delete), by email or record id; the email is blocklisted',
    credentials: 'private app access token with crm.objects.contacts.read/write (Bearer)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'GDPR delete, then a lookup answering 404 is the proof',
    completion: 'seconds',
    docsUrl: 'https://developers.hubspot.com/docs/api/crm/contacts',
  },
});
