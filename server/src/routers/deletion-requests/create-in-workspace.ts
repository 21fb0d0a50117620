import { z } from 'zod';
import { deletionRequestSchema, identifierSchema } from '@shared/schemas/deletion-request';
import { regulationNameSchema } from '@shared/deadlines';
import { memberProcedure } from '../../trpc/procedures';
import { createDeletionRequest } from '../../services/deletion-requests/create-deletion-request';
import { getWorkspace } from '../../services/workspaces/workspaces';

/** Dashboard "Create request": a workspace chosen by id instead of its API key. */
export const createInWorkspace = memberProcedure
  .input(z.object({ workspaceId: z.string().max(64), identifier: identifierSchema, regulation: regulationNameSchema.optional() }))
  .output(deletionRequestSchema)
  .mutation(async ({ ctx, input }) => {
    const workspace = await getWorkspace(ctx.prisma, ctx.actor, input.workspaceId);
    const result = await createDeletionRequest(ctx.prisma, ctx.keyring, ctx.actor, { workspaceId: workspace.id, identifier: input.identifier, regulation: input.regulation });
    return result.deletionRequest;
  });
