import { z } from 'zod';
import { baseUrlSchema } from './vendor';

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
