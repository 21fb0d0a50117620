import { overviewInputSchema } from '@shared/schemas/dashboard';
import { memberProcedure } from '../../trpc/procedures';
import { getOverview } from '../../services/dashboard/get-overview';

/** Charts of the Overview screen. */
export const overview = memberProcedure
  .input(overviewInputSchema)
  .query(({ ctx, input }) => getOverview(ctx.prisma, ctx.keyring, ctx.actor, input));
