import { z } from 'zod';
import { baseUrlSchema } from './vendor';

export const chargebeeConfigSchema = z.object({
  /** The site's name: "acme" for https://acme.chargebee.com ("acme-test" for its test site). */
  site: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'The site name of https://<site>.chargebee.com'),
  /** Whether the request identifier is the customer's email or its Chargebee customer id. */
  identifierType: z.enum(['email', 'customer_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type ChargebeeConfig = z.infer<typeof chargebeeConfigSchema>;

export const chargebeeBaseUrl = (config: Pick<ChargebeeConfig, 'site' | 'baseUrl'>) =>
  config.baseUrl ?? `https://${config.site}.chargebee.com`;
