import { z } from 'zod';
import { deletionRequestSchema, identifierSchema, receivedAtSchema } from '@shared/schemas/deletion-request';
import { regulationNameSchema } from '@shared/deadlines';
import { memberProcedure } from '../../trpc/procedures';
import { createDeletionRequest } from '../../pipeline/commands/create';

/** Dashboard "Create request": a workspace chosen by id instead of its API key. */
export const createInWorkspace = memberProcedure
  .meta({ scope: 'requests:write' })
  .input(
    z.object({
      workspaceId: z.string().max(64),
      identifier: identifierSchema,
      regulation: regulationNameSchema.optional(),
      receivedAt: receivedAtSchema.optional(),
    }),
  )
  .output(deletionRequestSchema)
  .mutation(
    async ({ ctx, input }) =>
      (
        await createDeletionRequest(ctx, ctx.actor, {
          workspace: { id: input.workspaceId },
          identifier: input.identifier,
          regulation: input.regulation,
          receivedAt: input.receivedAt,
        })
      ).deletionRequest,
  );
