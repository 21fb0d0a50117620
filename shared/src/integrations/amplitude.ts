import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

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

export const amplitudeConnector = defineConnector({
  type: 'AMPLITUDE',
  label: 'Amplitude',
  accountTypes: ['API_KEY_SECRET'],
  accountRequired: true,
  configSchema: amplitudeConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes: 'all events and user properties of the user id or amplitude id, in the project or the organization',
    credentials: 'project API key + secret key (HTTP Basic)',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      "scheduled into a job 10–13 days out, polled per day and project; only this subject's ids are tracked (by amplitude id, the word `subject`: never the identifier itself); cancel while staging",
    completion: 'about 2 weeks',
    docsUrl: 'https://amplitude.com/docs/apis/analytics/user-privacy',
  },
});
