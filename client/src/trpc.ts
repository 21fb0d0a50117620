import { QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter, RouterInputs, RouterOutputs } from '@api';
import { errorCode } from './lib/errors';
import { trpcFetch } from './lib/trpc-fetch';

export type { RouterInputs, RouterOutputs };

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** How the signed-in frame asks who is signed in (main.tsx starts the same query before the frame renders). */
export const SESSION_QUERY_OPTIONS = { retry: false, staleTime: 60_000 } as const;

/** Queries whose input can hold a subject identifier: sent as POST, so it is in no URL (and no server or proxy log). */
const POST_QUERIES = new Set([
  'dashboard.searchRequests',
  'deletionRequests.countMatching',
  'dashboard.openDuplicates',
]);

export function createTrpcClient() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'query' && POST_QUERIES.has(op.path),
        true: httpBatchLink({ url: '/trpc', fetch: trpcFetch, methodOverride: 'POST' }),
        false: httpBatchLink({ url: '/trpc', fetch: trpcFetch, maxURLLength: 4000 }),
      }),
    ],
  });
}

const NO_RETRY = new Set([
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'UNPROCESSABLE_CONTENT',
  'CONFLICT',
]);

/** `onSignedOut` runs when any call reports the session is gone, so the shell can send the user to sign in. */
export function createQueryClient(onSignedOut: (queryKey: readonly unknown[]) => void) {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (errorCode(error) === 'UNAUTHORIZED') onSignedOut(query.queryKey);
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: true,
        retry: (failureCount, error) => !NO_RETRY.has(errorCode(error) ?? '') && failureCount < 2,
      },
    },
  });
}
