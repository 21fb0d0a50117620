import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const zendeskConfigSchema = z.object({
  /** The account's subdomain: "acme" for https://acme.zendesk.com. */
  subdomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'The subdomain of https://<subdomain>.zendesk.com'),
  /** The admin whose API token the account holds (Basic "{email}/token:{api token}"). */
  agentEmail: z.string().trim().email('The email of the admin who created the API token').max(320),
  /** Whether the request identifier is the user's email or its Zendesk user id. */
  identifierType: z.enum(['email', 'user_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type ZendeskConfig = z.infer<typeof zendeskConfigSchema>;

export const zendeskBaseUrl = (config: Pick<ZendeskConfig, 'subdomain' | 'baseUrl'>) =>
  config.baseUrl ?? `https://${config.subdomain}.zendesk.com`;

export const zendeskConnector = defineConnector({
  type: 'ZENDESK',
  label: 'Zendesk',
  // An admin's API token; the admin's email is part of the configuration.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: zendeskConfigSchema,
  catalogue: {
    category: 'Customer support',
    deletes: 'the user (by email or id): deleted, then permanently deleted',
    credentials: "an admin's API token; the admin's email is configuration (Basic email/token)",
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'also finds users soft-deleted earlier (deleted users, by email); a 404 among deleted users after the permanent delete is the proof',
    completion: 'seconds',
    docsUrl: 'https://developer.zendesk.com/api-reference/ticketing/users/users/#permanently-delete-user',
  },
});
