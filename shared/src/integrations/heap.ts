import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

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

export const heapConnector = defineConnector({
  type: 'HEAP',
  label: 'Heap',
  // The User Deletion API key (Account → Manage → Privacy & Security); the app id is configuration.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: heapConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes: 'the user (by identity or Heap user id) and its data in every environment of the account',
    credentials: "User Deletion API key; the Main Production environment's app id is configuration",
    capabilities: { status: true, cancel: false, verify: false },
    notes:
      "a fresh auth token each step, a deletion request polled until Heap reports it complete (Heap's status is the evidence: no lookup exists); a 429 waits, using no attempt",
    completion: 'days',
    docsUrl: 'https://developers.heap.io/reference/user-deletion',
  },
});
