import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const STRIPE_API_HOST = 'https://api.stripe.com';

/** The Stripe API version our requests pin (the version the contract tests ran the SDK with). */
export const STRIPE_API_VERSION = '2026-10-28.endive';

export const stripeConfigSchema = z.object({
  /** Whether the request identifier is the customer's email or its Stripe customer id (cus_…). */
  identifierType: z.enum(['email', 'customer_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type StripeConfig = z.infer<typeof stripeConfigSchema>;

export const stripeConnector = defineConnector({
  type: 'STRIPE',
  label: 'Stripe',
  // A secret key, or a restricted key with write access to customers.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: stripeConfigSchema,
  catalogue: {
    category: 'Payments',
    deletes: 'the customer (by id, or every customer with the email); its subscriptions are canceled',
    credentials: 'secret or restricted key with customers write access (Bearer)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'delete, then retrieve each customer: `deleted: true` is the proof',
    completion: 'seconds',
    docsUrl: 'https://docs.stripe.com/api/customers/delete',
  },
});
