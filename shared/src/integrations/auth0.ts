import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const auth0ConfigSchema = z.object({
  /**
   * The tenant's own domain, such as acme.eu.auth0.com; not a custom (login) domain: the
   * Management API token's audience is https://{this domain}/api/v2/, which only the tenant's domain names.
   */
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
      "The tenant's domain, such as acme.eu.auth0.com",
    ),
  /** Whether the request identifier is the user's email or its Auth0 user id (auth0|…). */
  identifierType: z.enum(['email', 'user_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type Auth0Config = z.infer<typeof auth0ConfigSchema>;

export const auth0Connector = defineConnector({
  type: 'AUTH0',
  label: 'Auth0',
  // A machine-to-machine application: client id (API key) and client secret, with read:users and delete:users.
  accountTypes: ['API_KEY_SECRET'],
  accountRequired: true,
  configSchema: auth0ConfigSchema,
  catalogue: {
    category: 'Identity',
    deletes: 'every user with the email (one per connection), or the user id',
    credentials: 'machine-to-machine client id + secret with read:users and delete:users',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'delete, then a 404 on fetch is the proof; Management API tokens are reused; a 429 (token endpoint included) waits for x-ratelimit-reset',
    completion: 'seconds',
    docsUrl: 'https://auth0.com/docs/api/management/v2/users/delete-users-by-id',
  },
});
