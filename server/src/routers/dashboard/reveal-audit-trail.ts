import { requestDetailInputSchema } from '@shared/schemas/dashboard';
import { memberProcedure } from '../../trpc/procedures';
import { revealAuditTrail as reveal } from '../../services/dashboard/reveal-audit-trail';

/** A request's audit trail with the identifiers in its recorded exchanges unmasked; every reveal is audited. */
export const revealAuditTrail = memberProcedure
  .input(requestDetailInputSchema)
  .mutation(({ ctx, input }) => reveal(ctx.prisma, ctx.actor, input.deletionRequestId));
