import { z } from 'zod';
import { identifierTypeNameSchema, requestIdentifiersInputSchema } from '../identifiers';
import { identifierSchema } from './deletion-request';

/**
 * What a create does when the person already has an open request (not SUCCESS or CANCELED) in
 * the organization, matched by any identifier as its type's normaliser compares it: `create`
 * records another one anyway (the default, as before), `return_existing` answers the open one
 * and writes nothing.
 */
export const onDuplicateSchema = z.enum(['create', 'return_existing']).meta({
  description:
    'When the person (any identifier, emails without case, phones in E.164) already has an open request in the organization: `create` (default) records a new one anyway; `return_existing` answers the most recent open request instead (HTTP 200 rather than 201) and records nothing.',
  example: 'return_existing',
});
export type OnDuplicate = z.infer<typeof onDuplicateSchema>;

/** The create form's identifiers, checked for an open request of the same person before it is sent. */
export const openDuplicatesInputSchema = z.object({
  identifier: identifierSchema,
  identifierType: identifierTypeNameSchema.optional(),
  identifiers: requestIdentifiersInputSchema.optional(),
});

/** A person's page is anchored on one of their requests: an identifier never sits in its URL. */
export const personRequestsInputSchema = z.object({ deletionRequestId: z.string().min(1).max(64) });
