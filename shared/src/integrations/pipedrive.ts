import { z } from 'zod';
import { baseUrlSchema } from './vendor';

/** Pipedrive's API host; requests go to /api/v2 below it. */
export const PIPEDRIVE_API_HOST = 'https://api.pipedrive.com';

export const pipedriveConfigSchema = z.object({
  /** Whether the request identifier is the person's email or its Pipedrive person id. */
  identifierType: z.enum(['email', 'person_id']).default('email'),
  /** Replaces https://api.pipedrive.com (a company domain such as https://acme.pipedrive.com works too). */
  baseUrl: baseUrlSchema,
});
export type PipedriveConfig = z.infer<typeof pipedriveConfigSchema>;
