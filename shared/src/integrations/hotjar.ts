import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
