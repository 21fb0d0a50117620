import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

export const mailchimpConfigSchema = z.object({
  /** The audience (list) id, from Audience → Settings → "Audience name and defaults". */
  listId: z
    .string()
    .trim()
    .regex(/^[a-z0-9]{1,32}$/i, 'A Mailchimp audience id, such as 1a2b3c4d5e'),
  /** The request identifier is the member's email address (Mailchimp keys members by its MD5). */
  identifierType: z.enum(['email']).default('email'),
  baseUrl: baseUrlSchema,
});
export type MailchimpConfig = z.infer<typeof mailchimpConfigSchema>;

/** The data center of an API key ("…-us6" → "us6"), which names the API host. */
export function mailchimpDataCenter(apiKey: string): string | null {
  const match = /-([a-z]{2,4}\d{1,3})$/.exec(apiKey.trim());
  return match ? match[1]! : null;
}

export const mailchimpConnector = defineConnector({
  type: 'MAILCHIMP',
  label: 'Mailchimp',
  // An API key (it ends in the account's data center, such as -us6).
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: mailchimpConfigSchema,
  catalogue: {
    category: 'Marketing',
    deletes: 'the member of one audience, permanently (it cannot be re-imported)',
    credentials: 'API key (its suffix names the data center; HTTP Basic)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'permanent delete, then a lookup answering 404 is the proof',
    completion: 'seconds',
    docsUrl: 'https://mailchimp.com/developer/marketing/api/list-members/delete-list-member-permanently/',
  },
});
