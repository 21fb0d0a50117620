import { requestSearchInputSchema } from '@shared/schemas/dashboard';
import { memberProcedure } from '../../trpc/procedures';
import { searchDeletionRequests } from '../../services/dashboard/search-deletion-requests';

/** The Requests screen's filtered, keyset-paginated list: `{ items, nextCursor }`. */
export const searchRequests = memberProcedure
  .input(requestSearchInputSchema)
  .query(({ ctx, input }) => searchDeletionRequests(ctx.prisma, ctx.keyring, ctx.actor, input));
