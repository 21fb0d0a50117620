import { z } from 'zod';
import { workspaceNameSchema } from '@shared/schemas/auth';
import { router } from '../../trpc/init';
import { adminProcedure, memberProcedure } from '../../trpc/procedures';
import {
  createWorkspace,
  deleteWorkspace,
  getWorkspace,
  listWorkspaces,
  renameWorkspace,
  revealWorkspaceApiKey,
  rotateWorkspaceApiKey,
} from '../../services/workspaces/workspaces';

const workspaceId = z.object({ workspaceId: z.string().max(64) });

export const workspacesRouter = router({
  list: memberProcedure.query(({ ctx }) => listWorkspaces(ctx.prisma, ctx.actor)),
  get: memberProcedure
    .input(workspaceId)
    .query(({ ctx, input }) => getWorkspace(ctx.prisma, ctx.actor, input.workspaceId)),
  /** Returns the new workspace with its API key. */
  create: adminProcedure
    .input(z.object({ name: workspaceNameSchema }))
    .mutation(({ ctx, input }) => createWorkspace(ctx.prisma, ctx.keyring, ctx.actor, input)),
  rename: adminProcedure
    .input(workspaceId.extend({ name: workspaceNameSchema }))
    .mutation(({ ctx, input }) => renameWorkspace(ctx.prisma, ctx.actor, input)),
  /** Deletes the workspace, its integrations and its request history. */
  delete: adminProcedure
    .input(workspaceId)
    .mutation(({ ctx, input }) => deleteWorkspace(ctx.prisma, ctx.actor, input.workspaceId)),
  revealApiKey: adminProcedure
    .input(workspaceId)
    .mutation(({ ctx, input }) => revealWorkspaceApiKey(ctx.prisma, ctx.keyring, ctx.actor, input.workspaceId)),
  /** The old key stops working at once. */
  rotateApiKey: adminProcedure
    .input(workspaceId)
    .mutation(({ ctx, input }) => rotateWorkspaceApiKey(ctx.prisma, ctx.keyring, ctx.actor, input.workspaceId)),
});
