import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

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

export const fullstoryConnector = defineConnector({
  type: 'FULLSTORY',
  label: 'Fullstory',
  // A Fullstory API key with Admin or Architect permissions (its lookups retrieve data).
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: fullstoryConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes:
      'every Fullstory user with the uid (your id for the person, from FS.identify), or the user by Fullstory id, with its data',
    credentials: 'API key with Admin or Architect permissions (Basic); another data center is a base URL',
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'users listed by uid, deleted by uid, then GetUser is polled for each while is_being_deleted until it answers 404, the proof; a 429 waits for Retry-After, using no attempt',
    completion: 'minutes to days',
    docsUrl: 'https://developer.fullstory.com/server/v2/users/delete-user/',
  },
});
