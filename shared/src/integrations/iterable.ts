import { z } from 'zod';
import { defineConnector } from './connector';
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

export const iterableConnector = defineConnector({
  type: 'ITERABLE',
  label: 'Iterable',
  // A server-side API key of the project (each key belongs to one project and its data center).
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: iterableConfigSchema,
  catalogue: {
    category: 'Marketing',
    deletes: "the user (by email or userId) and their data in the key's project; the identifier is forgotten (GDPR)",
    credentials: 'server-side API key of the project (Api-Key header); the data center (US or EU) is configuration',
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'look up, POST users/forget (also for a user not found, so no data about them is collected again), then the lookup is polled until it finds no user; a 429 waits without using an attempt',
    completion: 'up to ten minutes',
    docsUrl: 'https://support.iterable.com/hc/en-us/articles/360029174171-Responding-to-GDPR-Requests',
  },
});
