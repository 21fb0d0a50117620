import { z } from 'zod';
import { baseUrlSchema } from './vendor';

/** Amplitude User Privacy API hosts by data residency. */
export const AMPLITUDE_HOSTS = { US: 'https://amplitude.com', EU: 'https://analytics.eu.amplitude.com' } as const;

export const amplitudeConfigSchema = z
  .object({
    region: z.enum(['US', 'EU']).default('US'),
    /** Whether the request identifier is your user id or Amplitude's numeric amplitude_id. */
    identifierType: z.enum(['user_id', 'amplitude_id']).default('user_id'),
    /** Recorded by Amplitude with the job, for its own audit ("requester"). */
    requester: z.string().trim().max(200).default('deletion-request-service'),
    /** Delete the user from every project of the Amplitude organization (Portfolio; user ids only). */
    deleteFromOrg: z.boolean().default(false),
    /** When Amplitude does not know the user, finish as "nothing to delete" instead of failing. */
    ignoreInvalidId: z.boolean().default(true),
    baseUrl: baseUrlSchema,
  })
  .superRefine((config, ctx) => {
    if (config.deleteFromOrg && config.identifierType !== 'user_id') {
      ctx.addIssue({
        code: 'custom',
        path: ['deleteFromOrg'],
        message: 'Organization-wide deletion works with user ids only',
      });
    }
  });
export type AmplitudeConfig = z.infer<typeof amplitudeConfigSchema>;
