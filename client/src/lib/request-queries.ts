import type { RequestSearchFilter } from '@shared/schemas/dashboard';
import { queryClient, trpcOptions } from '../query';
import type { useTRPC } from '../trpc';
import { filtersFromSearchParams, REQUESTS_PAGE_SIZE, toSearchFilter } from './request-filters';
import { seedEarlyRequestsData } from '../query';
import { timeZoneChoice } from './time-zone';

type Trpc = ReturnType<typeof useTRPC>;

export const LIVE_REFRESH_MS = 4_000;
export { REQUESTS_PAGE_SIZE };

/** The Requests screen's queries: its first page for `filter`, and the lists its filters offer. */
export function requestListQueries(
  trpc: Trpc,
  filter: RequestSearchFilter,
  enabled = true,
  sort: 'created' | 'due' = 'created',
) {
  return {
    workspaces: trpc.workspaces.list.queryOptions(),
    members: trpc.dashboard.members.queryOptions(),
    requests: trpc.dashboard.searchRequests.infiniteQueryOptions(
      { filter, sort, limit: REQUESTS_PAGE_SIZE },
      {
        enabled,
        getNextPageParam: (last) => last.nextCursor,
        // Statuses move while the page is open: poll quietly, keep what is on screen meanwhile.
        refetchInterval: LIVE_REFRESH_MS,
        placeholderData: (previous) => previous,
      },
    ),
  };
}

/**
 * The route's loader: asks for the screen's data the moment the route is entered, while
 * its code is still loading (and in the same batch as "who am I" on a fresh page load).
 * It never waits for the answers; the screen's own queries pick them up. Filters the server
 * refuses are shown by the screen, which validates them itself.
 */
export async function requestsLoader({ request }: { request: Request }) {
  // On a fresh load of this page its data is already on the way (early-data.ts): use it.
  await seedEarlyRequestsData();
  // Known to be signed out (the page said so): the frame sends the visitor to sign in; asking would only be refused.
  if (queryClient.getQueryData(trpcOptions.auth.session.queryKey()) === null) return null;
  const filters = filtersFromSearchParams(new URL(request.url).searchParams);
  const queries = requestListQueries(
    trpcOptions,
    toSearchFilter(filters, timeZoneChoice()),
    true,
    filters.sort ?? 'created',
  );
  void queryClient.prefetchInfiniteQuery(queries.requests);
  void queryClient.prefetchQuery(queries.workspaces);
  void queryClient.prefetchQuery(queries.members);
  return null;
}
