import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
