import { z } from 'zod';
import { baseUrlSchema } from './vendor';

/** Fullstory's Server API host, as its published OpenAPI document (`host`) names it. */
export const FULLSTORY_API_HOST = 'https://api.fullstory.com';

export const fullstoryConfigSchema = z.object({
  /**
   * `uid`: the request identifier is the id your application gave the user (`FS.identify`),
   * every Fullstory user with it is deleted; `id`: it is the Fullstory-generated user id.
   */
  identifierType: z.enum(['uid', 'id']).default('uid'),
  /** Another data center's API host (e.g. Fullstory EU), a proxy, or a test fake. */
  baseUrl: baseUrlSchema,
});
export type FullstoryConfig = z.infer<typeof fullstoryConfigSchema>;
