import { requestSearchInputSchema } from '@shared/schemas/dashboard';
import { memberProcedure } from '../../trpc/procedures';
import { searchDeletionRequests } from '../../services/dashboard/search-deletion-requests';
import { refuseIdentifierInUrl } from '../identifier-in-url';

/**
 * The Requests screen's filtered, keyset-paginated list: `{ items, nextCursor }`, identifiers
 * masked (`revealIdentifier` shows one, audited). A search by identifier must come as a POST
 * body: in a GET URL it would sit in browser history, proxies' and servers' logs.
 */
export const searchRequests = memberProcedure.input(requestSearchInputSchema).query(({ ctx, input }) => {
  refuseIdentifierInUrl(ctx, input.filter);
  return searchDeletionRequests(ctx.prisma, ctx.keyring, ctx.actor, input);
});
