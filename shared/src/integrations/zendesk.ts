import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
