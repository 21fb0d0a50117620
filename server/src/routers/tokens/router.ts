import { z } from 'zod';
import { createTokenInputSchema } from '@shared/schemas/auth';
import { router } from '../../trpc/init';
import { authedProcedure } from '../../trpc/procedures';
import {
  createPersonalAccessToken,
  listPersonalAccessTokens,
  revokePersonalAccessToken,
} from '../../services/tokens/personal-access-tokens';

const DAY_MS = 86_400_000;

export const tokensRouter = router({
  /** The secret is in this response only; the service keeps a hash. */
  create: authedProcedure.input(createTokenInputSchema).mutation(({ ctx, input }) =>
    createPersonalAccessToken(ctx.prisma, ctx.actor, {
      name: input.name,
      expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * DAY_MS) : null,
      scopes: input.scopes,
      workspaceIds: input.workspaceIds,
    }),
  ),
  list: authedProcedure.query(({ ctx }) => listPersonalAccessTokens(ctx.prisma, ctx.actor)),
  revoke: authedProcedure
    .input(z.object({ tokenId: z.string().max(64) }))
    .mutation(({ ctx, input }) => revokePersonalAccessToken(ctx.prisma, ctx.actor, input.tokenId)),
});
