import { requestDetailInputSchema } from '@shared/schemas/dashboard';
import { memberProcedure } from '../../trpc/procedures';
import { getDeletionRequestDetail } from '../../services/dashboard/get-deletion-request-detail';

/** One request with its integration requests and audit timeline. */
export const requestDetail = memberProcedure
  .input(requestDetailInputSchema)
  .query(({ ctx, input }) => getDeletionRequestDetail(ctx.prisma, ctx.keyring, ctx.actor, input.deletionRequestId));
