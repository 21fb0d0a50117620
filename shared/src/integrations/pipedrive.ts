import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** Pipedrive's API host; requests go to /api/v2 below it. */
export const PIPEDRIVE_API_HOST = 'https://api.pipedrive.com';

export const pipedriveConfigSchema = z.object({
  /** Whether the request identifier is the person's email or its Pipedrive person id. */
  identifierType: z.enum(['email', 'person_id']).default('email'),
  /** Replaces https://api.pipedrive.com (a company domain such as https://acme.pipedrive.com works too). */
  baseUrl: baseUrlSchema,
});
export type PipedriveConfig = z.infer<typeof pipedriveConfigSchema>;

export const pipedriveConnector = defineConnector({
  type: 'PIPEDRIVE',
  label: 'Pipedrive',
  // A user's personal API token (Personal preferences → API).
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: pipedriveConfigSchema,
  catalogue: {
    category: 'CRM',
    deletes: 'the persons holding the email (exact search), or the person id',
    credentials: 'API token (x-api-token header)',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'delete, then fetching each person (404 or is_deleted) is the proof; Pipedrive removes deleted persons from its systems 30 days later; a 429 waits x-ratelimit-reset',
    completion: 'seconds (purged by Pipedrive after 30 days)',
    docsUrl: 'https://developers.pipedrive.com/docs/api/v1/Persons#deletePerson',
  },
});
