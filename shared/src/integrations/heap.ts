import { z } from 'zod';
import { baseUrlSchema } from './vendor';

/** Heap's public API host, for US and EU data centers alike (Heap's User Deletion page). */
export const HEAP_API_HOST = 'https://heapanalytics.com';

export const heapConfigSchema = z.object({
  /**
   * The environment id of the account's Main Production environment (Account → Manage → Privacy &
   * Security): the username of the token request. Not secret: it ships in the tracking snippet.
   */
  appId: z.string().trim().min(1, 'Required').max(40).regex(/^\d+$/, 'A Heap app id (environment id) is a number'),
  /**
   * `user_identity`: the request identifier is the identity your code gave Heap (`heap.identify`);
   * `user_id`: it is Heap's own user id.
   */
  identifierType: z.enum(['user_identity', 'user_id']).default('user_identity'),
  /** A proxy or a test fake in place of heapanalytics.com. */
  baseUrl: baseUrlSchema,
});
export type HeapConfig = z.infer<typeof heapConfigSchema>;
