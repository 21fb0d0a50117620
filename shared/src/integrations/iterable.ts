import { z } from 'zod';
import { baseUrlSchema, vendorBaseUrl } from './vendor';

/** Iterable's API hosts by data center: a project (and its API keys) lives in one of them. */
export const ITERABLE_HOSTS = { US: 'https://api.iterable.com', EU: 'https://api.eu.iterable.com' } as const;

export const iterableConfigSchema = z.object({
  /** The data center that hosts the project: US (USDC) or EU (EDC). */
  region: z.enum(['US', 'EU']).default('US'),
  /**
   * Whether the request identifier is the user's email or userId. Email-based projects forget
   * by email, userID-based projects by userId, hybrid projects by either.
   */
  identifierType: z.enum(['email', 'userId']).default('email'),
  baseUrl: baseUrlSchema,
});
export type IterableConfig = z.infer<typeof iterableConfigSchema>;

export const iterableBaseUrl = (config: Pick<IterableConfig, 'region' | 'baseUrl'>) =>
  vendorBaseUrl(config, ITERABLE_HOSTS);
