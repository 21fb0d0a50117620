import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** SendGrid API hosts by data residency. */
export const SENDGRID_HOSTS = { GLOBAL: 'https://api.sendgrid.com', EU: 'https://api.eu.sendgrid.com' } as const;

export const sendgridConfigSchema = z.object({
  region: z.enum(['GLOBAL', 'EU']).default('GLOBAL'),
  /** The request identifier is the contact's email (Marketing Campaigns contacts). */
  identifierType: z.enum(['email']).default('email'),
  baseUrl: baseUrlSchema,
});
export type SendgridConfig = z.infer<typeof sendgridConfigSchema>;

export const sendgridConnector = defineConnector({
  type: 'SENDGRID',
  label: 'SendGrid',
  // An API key with Marketing (contacts) access.
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: sendgridConfigSchema,
  catalogue: {
    category: 'Marketing',
    deletes: 'the Marketing Campaigns contact with the email',
    credentials: 'API key with Marketing access (Bearer)',
    capabilities: { status: true, cancel: false, verify: true },
    notes: 'a delete job, polled; a search finding no contact is the proof',
    completion: 'minutes',
    docsUrl: 'https://www.twilio.com/docs/sendgrid/api-reference/contacts/delete-contacts',
  },
});
