import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** Hotjar's API host ("All API calls are made to the same base domain: https://api.hotjar.io"). */
export const HOTJAR_API_HOST = 'https://api.hotjar.io';

const numericId = (what: string) =>
  z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .pipe(z.string().regex(/^\d{1,20}$/, `A Hotjar ${what} id is a number`));

export const hotjarConfigSchema = z
  .object({
    /** The organization whose sites are searched (Sites & Organizations page). */
    organizationId: numericId('organization'),
    /**
     * `email`: the request identifier is the email a person gave in a survey or feedback widget;
     * `user_id`: it is the User ID your code passed to Hotjar's Identify API, looked up on `siteIds`.
     */
    identifierType: z.enum(['email', 'user_id']).default('email'),
    /** The sites of the organization where the User ID is looked up (`user_id` only). */
    siteIds: z.array(numericId('site')).max(100).default([]),
    /** A proxy or a test fake in place of api.hotjar.io. */
    baseUrl: baseUrlSchema,
  })
  .superRefine((config, ctx) => {
    if (config.identifierType === 'user_id' && config.siteIds.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['siteIds'],
        message: 'A User ID is looked up per site: name at least one site id',
      });
  });
export type HotjarConfig = z.infer<typeof hotjarConfigSchema>;

export const hotjarConnector = defineConnector({
  type: 'HOTJAR',
  label: 'Hotjar',
  // A Hotjar API key: client ID (API key) and client secret (secret key).
  accountTypes: ['API_KEY_SECRET'],
  accountRequired: true,
  configSchema: hotjarConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes:
      'what Hotjar links to the email (survey and feedback responses, the recordings they were connected to) or to the User ID on the configured sites; not personal data shown inside recordings or heatmaps',
    credentials:
      'API key: client ID + client secret (OAuth client credentials); the organization id is configuration; Observe or Ask Scale plans',
    capabilities: { status: false, cancel: false, verify: false },
    notes:
      'one User Lookup with delete_all_hits across the organization; Hotjar offers no status or lookup, so its acceptance is the evidence',
    completion: 'at once',
    docsUrl: 'https://help.hotjar.com/hc/en-us/articles/12244109929751-Hotjar-API-Reference',
  },
});
