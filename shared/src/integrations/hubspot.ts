import { z } from 'zod';
import { baseUrlSchema } from './vendor';

export const HUBSPOT_API_HOST = 'https://api.hubapi.com';

export const hubspotConfigSchema = z.object({
  /** Whether the request identifier is the contact's email or its HubSpot record id. */
  identifierType: z.enum(['email', 'contact_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type HubspotConfig = z.infer<typeof hubspotConfigSchema>;
