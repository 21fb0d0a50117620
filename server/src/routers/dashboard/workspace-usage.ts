import { memberProcedure } from '../../trpc/procedures';
import { listWorkspaceUsage } from '../../services/dashboard/list-workspace-usage';

/** Integration and request counts per workspace. */
export const workspaceUsage = memberProcedure.query(({ ctx }) => listWorkspaceUsage(ctx.prisma, ctx.actor));
