import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** Customer.io hosts by data center: the Track API (deletes) and the App API (lookups). */
export const CUSTOMERIO_HOSTS = {
  US: { track: 'https://track.customer.io/api/v1', app: 'https://api.customer.io/v1' },
  EU: { track: 'https://track-eu.customer.io/api/v1', app: 'https://api-eu.customer.io/v1' },
} as const;

export const customerioConfigSchema = z.object({
  region: z.enum(['US', 'EU']).default('US'),
  /** The workspace's Site ID (Settings → API credentials), used with the Track API key. */
  siteId: z.string().trim().min(1, 'Required').max(100),
  /** Whether the request identifier is the person's email or your id for them. */
  identifierType: z.enum(['email', 'id']).default('email'),
  /**
   * `suppress` deletes the person and keeps their identifiers from being added again (what
   * Customer.io names for GDPR/CCPA requests); `delete` only deletes, and a later update can
   * recreate the person.
   */
  method: z.enum(['suppress', 'delete']).default('suppress'),
  /** Replaces both hosts: the Track API is served under /api/v1 and the App API under /v1. */
  baseUrl: baseUrlSchema,
});
export type CustomerioConfig = z.infer<typeof customerioConfigSchema>;

export function customerioUrls(config: Pick<CustomerioConfig, 'region' | 'baseUrl'>): { track: string; app: string } {
  return config.baseUrl
    ? { track: `${config.baseUrl}/api/v1`, app: `${config.baseUrl}/v1` }
    : CUSTOMERIO_HOSTS[config.region];
}

export const customerioConnector = defineConnector({
  type: 'CUSTOMERIO',
  label: 'Customer.io',
  // The Track API key (API key) and an App API key (secret key); the Site ID is part of the configuration.
  accountTypes: ['API_KEY_SECRET'],
  accountRequired: true,
  configSchema: customerioConfigSchema,
  catalogue: {
    category: 'Marketing',
    deletes:
      'the person (by email or id) and its data; by default its identifiers are suppressed so they cannot be added again',
    credentials: 'Track API key + App API key; the Site ID is configuration',
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'Track API suppress by cio_id (delete only, as an option, can be undone by a later update), then the App API is polled until it answers 404',
    completion: 'seconds to minutes',
    docsUrl: 'https://docs.customer.io/integrations/api/track/tag/track-customers/suppress/',
  },
});
