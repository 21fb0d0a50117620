import { z } from 'zod';
import { defineConnector } from './connector';
import { baseUrlSchema } from './vendor';

/** The GraphQL Admin API version our requests pin (a stable release; customerRequestDataErasure exists since 2024-01). */
export const SHOPIFY_API_VERSION = '2026-10';

export const shopifyConfigSchema = z.object({
  /** The shop's own domain, such as acme.myshopify.com (not a custom storefront domain). */
  shopDomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/, 'The shop domain, such as acme.myshopify.com'),
  /** Whether the request identifier is the customer's email or its Shopify customer id (number or gid://shopify/Customer/…). */
  identifierType: z.enum(['email', 'customer_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type ShopifyConfig = z.infer<typeof shopifyConfigSchema>;

/** The GraphQL Admin API endpoint of the shop (or of the base URL override). */
export const shopifyGraphqlUrl = (config: Pick<ShopifyConfig, 'shopDomain' | 'baseUrl'>) =>
  `${config.baseUrl ?? `https://${config.shopDomain}`}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`;

export const shopifyConnector = defineConnector({
  type: 'SHOPIFY',
  label: 'Shopify',
  // An Admin API access token (custom app) with read_customers and write_customers; the shop domain is configuration.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: shopifyConfigSchema,
  catalogue: {
    category: 'Payments',
    deletes: "the customer's personal data (by email or customer id); order facts without personal data stay",
    credentials: 'Admin API access token with read_customers and write_customers; the shop domain is configuration',
    capabilities: { status: false, cancel: false, verify: false },
    notes:
      "customers(query: email) then customerRequestDataErasure per customer: SUCCESS records Shopify's acceptance, not a verified erasure (Shopify erases later, held up to 180 days after a recent order, and reports no status); the query-cost throttle and 429 wait without using an attempt",
    completion: 'accepted in seconds; erased by Shopify later',
    docsUrl: 'https://shopify.dev/docs/api/admin-graphql/latest/mutations/customerRequestDataErasure',
  },
});
