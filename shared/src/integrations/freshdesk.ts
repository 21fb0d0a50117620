import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const freshdeskConfigSchema = z.object({
  /** The helpdesk's domain: "acme" for https://acme.freshdesk.com. */
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'The subdomain of https://<domain>.freshdesk.com'),
  /** Whether the request identifier is the contact's email or its Freshdesk contact id. */
  identifierType: z.enum(['email', 'contact_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type FreshdeskConfig = z.infer<typeof freshdeskConfigSchema>;

export const freshdeskBaseUrl = (config: Pick<FreshdeskConfig, 'domain' | 'baseUrl'>) =>
  config.baseUrl ?? `https://${config.domain}.freshdesk.com`;

export const freshdeskConnector = defineConnector({
  type: 'FRESHDESK',
  label: 'Freshdesk',
  // An agent's API key (Profile settings); the helpdesk's domain is configuration.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: freshdeskConfigSchema,
  catalogue: {
    category: 'Customer support',
    deletes: 'the contacts with the email (active and soft-deleted) or the contact id, hard-deleted with their tickets',
    credentials: "an agent's API key (HTTP Basic); the helpdesk domain is configuration",
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      "hard delete with force=true (Freshdesk's permanent deletion for GDPR), then a 404 on viewing each contact is the proof; a 429 waits Retry-After",
    completion: 'seconds',
    docsUrl: 'https://developers.freshdesk.com/api/#hard_delete_contact',
  },
});
