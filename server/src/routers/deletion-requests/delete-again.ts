import { z } from 'zod';
import { memberProcedure } from '../../trpc/procedures';
import { deleteAgain as deleteAgainCommand } from '../../pipeline/commands/delete-again';

/** After re-verification found the subject's data again: a new deletion request for it (dashboard). */
export const deleteAgain = memberProcedure
  .meta({ scope: 'requests:write' })
  .input(z.object({ deletionRequestId: z.string().max(64) }))
  .mutation(({ ctx, input }) => deleteAgainCommand(ctx, ctx.actor, input.deletionRequestId));
