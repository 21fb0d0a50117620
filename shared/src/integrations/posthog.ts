import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** PostHog Cloud hosts; self-hosted instances set `baseUrl`. */
export const POSTHOG_HOSTS = { US: 'https://us.posthog.com', EU: 'https://eu.posthog.com' } as const;

export const posthogConfigSchema = z.object({
  region: z.enum(['US', 'EU']).default('US'),
  /** The numeric project id (Project settings), part of every API path. */
  projectId: z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .pipe(z.string().regex(/^\d{1,20}$/, 'A PostHog project id is a number')),
  /** The request identifier is matched against the person's distinct ids. */
  identifierType: z.enum(['distinct_id']).default('distinct_id'),
  /** Also queue deletion of the person's events (PostHog runs these in a weekly batch). */
  deleteEvents: z.boolean().default(true),
  /** Also delete the person's session recordings (PostHog's `delete_recordings`). */
  deleteRecordings: z.boolean().default(true),
  /** Self-hosted PostHog, e.g. https://posthog.example.com */
  baseUrl: baseUrlSchema,
});
export type PosthogConfig = z.infer<typeof posthogConfigSchema>;

export const posthogConnector = defineConnector({
  type: 'POSTHOG',
  label: 'PostHog',
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: posthogConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes: 'the person by distinct id, its session recordings and (unless kept) its events',
    credentials: 'personal API key with person:read/person:write (Bearer)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'look up, delete, look up again as proof',
    completion: 'seconds (events within a week)',
    docsUrl: 'https://posthog.com/docs/api/persons',
  },
});
