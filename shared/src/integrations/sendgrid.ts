import { z } from 'zod';
import { baseUrlSchema } from './vendor';

/** SendGrid API hosts by data residency. */
export const SENDGRID_HOSTS = { GLOBAL: 'https://api.sendgrid.com', EU: 'https://api.eu.sendgrid.com' } as const;

export const sendgridConfigSchema = z.object({
  region: z.enum(['GLOBAL', 'EU']).default('GLOBAL'),
  /** The request identifier is the contact's email (Marketing Campaigns contacts). */
  identifierType: z.enum(['email']).default('email'),
  baseUrl: baseUrlSchema,
});
export type SendgridConfig = z.infer<typeof sendgridConfigSchema>;
