import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
