import { z } from 'zod';
import { baseUrlSchema } from './vendor';

export const STRIPE_API_HOST = 'https://api.stripe.com';

/** The Stripe API version our requests pin (the version the contract tests ran the SDK with). */
export const STRIPE_API_VERSION = '2026-10-28.endive';

export const stripeConfigSchema = z.object({
  /** Whether the request identifier is the customer's email or its Stripe customer id (cus_…). */
  identifierType: z.enum(['email', 'customer_id']).default('email'),
  baseUrl: baseUrlSchema,
});
export type StripeConfig = z.infer<typeof stripeConfigSchema>;
