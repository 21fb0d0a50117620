import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

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

export const chargebeeConnector = defineConnector({
  type: 'CHARGEBEE',
  label: 'Chargebee',
  // A full-access API key of the site; the site name is configuration.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: chargebeeConfigSchema,
  catalogue: {
    category: 'Payments',
    deletes:
      'the customers with the email, or the customer id, with their subscriptions, invoices, credit notes and payment methods (removed from the gateway too)',
    credentials: 'full-access API key (HTTP Basic); the site name is configuration',
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'Chargebee schedules the deletion; retrieving each customer is polled until it answers 404; customers in an account hierarchy or with gift subscriptions are refused by Chargebee (FAILED with its message)',
    completion: 'minutes',
    docsUrl: 'https://apidocs.chargebee.com/docs/api/customers/delete-a-customer',
  },
});
