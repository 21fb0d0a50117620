import { z } from 'zod';
import { deletionRequestSchema, identifierSchema, receivedAtSchema } from '@shared/schemas/deletion-request';
import { regulationNameSchema } from '@shared/deadlines';
import { identifierTypeNameSchema, requestIdentifiersInputSchema } from '@shared/identifiers';
import { onDuplicateSchema } from '@shared/schemas/person';
import { memberProcedure } from '../../trpc/procedures';
import { createDeletionRequest } from '../../pipeline/commands/create';

/** Dashboard "Create request": a workspace chosen by id instead of its API key. */
export const createInWorkspace = memberProcedure
  .meta({ scope: 'requests:write' })
  .input(
    z.object({
      workspaceId: z.string().max(64),
      identifier: identifierSchema,
      identifierType: identifierTypeNameSchema.optional().meta({
        description:
          'The type of `identifier` (email, phone, user_id or a type of the organization). Absent: email when it reads as an email address, else untyped (it then reaches only integrations that take the primary identifier).',
        example: 'email',
      }),
      identifiers: requestIdentifiersInputSchema.optional(),
      regulation: regulationNameSchema.optional(),
      receivedAt: receivedAtSchema.optional(),
      onDuplicate: onDuplicateSchema.optional(),
    }),
  )
  .output(deletionRequestSchema)
  .mutation(
    async ({ ctx, input }) =>
      (
        await createDeletionRequest(ctx, ctx.actor, {
          workspace: { id: input.workspaceId },
          identifier: input.identifier,
          identifierType: input.identifierType,
          identifiers: input.identifiers,
          regulation: input.regulation,
          receivedAt: input.receivedAt,
          onDuplicate: input.onDuplicate,
        })
      ).deletionRequest,
  );
