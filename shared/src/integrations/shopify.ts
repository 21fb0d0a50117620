import { z } from 'zod';
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
