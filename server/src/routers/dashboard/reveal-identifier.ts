import { requestDetailInputSchema } from '@shared/schemas/dashboard';
import { memberProcedure } from '../../trpc/procedures';
import { revealIdentifier as reveal } from '../../services/dashboard/masked-identifier';

/** The full identifier of one request, which lists and the detail show masked; every reveal is audited. */
export const revealIdentifier = memberProcedure
  .input(requestDetailInputSchema)
  .mutation(({ ctx, input }) => reveal(ctx.prisma, ctx.actor, input.deletionRequestId));
