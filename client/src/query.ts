import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import type { AppRouter } from '../../server/src/api-types';
import { createQueryClient, createTrpcClient } from './trpc';

const ME_PATH = 'auth.me';

/** The one tRPC client and query cache of the dashboard. */
export const trpcClient = createTrpcClient();

export const queryClient = createQueryClient((queryKey) => {
  // Another call found the session gone: re-check who we are and the shell sends us to sign in.
  const path = Array.isArray(queryKey[0]) ? (queryKey[0] as string[]).join('.') : '';
  if (path !== ME_PATH) void queryClient.invalidateQueries({ queryKey: [['auth', 'me']] });
});

/**
 * Query options outside React, for route loaders: a screen's first data is asked for as
 * soon as its code has loaded, before it renders. The keys are the ones `useTRPC()` gives,
 * so the screen's own queries find the data already there (or on its way).
 */
export const trpcOptions = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });
