import { z } from 'zod';
import { deletionRequestSchema, identifierSchema } from '@shared/schemas/deletion-request';
import { memberProcedure } from '../../trpc/procedures';
import { createDeletionRequest } from '../../services/deletion-requests/create-deletion-request';
import { getWorkspace } from '../../services/workspaces/workspaces';
import { assertWorkspaceAllowed } from '../../services/auth/actor';

/** Dashboard "Create request": a workspace chosen by id instead of its API key. */
export const createInWorkspace = memberProcedure
  .meta({ scope: 'requests:write' })
  .input(z.object({ workspaceId: z.string().max(64), identifier: identifierSchema }))
  .output(deletionRequestSchema)
  .mutation(async ({ ctx, input }) => {
    const workspace = await getWorkspace(ctx.prisma, ctx.actor, input.workspaceId);
    assertWorkspaceAllowed(ctx.actor, workspace.id);
    const result = await createDeletionRequest(ctx.prisma, ctx.keyring, ctx.actor, { workspaceId: workspace.id, identifier: input.identifier });
    return result.deletionRequest;
  });
