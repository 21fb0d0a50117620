import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import type { AppRouter } from '@api';
import { seedEarlyAnswers } from './lib/early-answers';
import { takeEarlyRequestsData } from './lib/early-data';
import { createQueryClient, createTrpcClient, SESSION_QUERY_OPTIONS } from './trpc';

const SESSION_PATH = 'auth.session';

/** The one tRPC client and query cache of the dashboard. */
export const trpcClient = createTrpcClient();

export const queryClient = createQueryClient((queryKey) => {
  // Another call found the session gone: re-check who we are and the shell sends us to sign in.
  const path = Array.isArray(queryKey[0]) ? (queryKey[0] as string[]).join('.') : '';
  if (path !== SESSION_PATH) void queryClient.invalidateQueries({ queryKey: [['auth', 'session']] });
});

/**
 * Query options outside React, for route loaders: a screen's first data is asked for as
 * soon as its code has loaded, before it renders. The keys are the ones `useTRPC()` gives,
 * so the screen's own queries find the data already there (or on its way).
 */
export const trpcOptions = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });

/** Asks who is signed in before the shell renders (main.tsx), with the shell's own options. */
export async function prefetchSession() {
  await seedEarlyRequestsData();
  return queryClient.prefetchQuery(trpcOptions.auth.session.queryOptions(undefined, SESSION_QUERY_OPTIONS));
}

let seeding: Promise<void> | null = null;

/** Puts the Requests page's early answers (lib/early-data.ts) into the cache, under the screen's own keys. */
export function seedEarlyRequestsData(): Promise<void> {
  seeding ??= (async () => {
    const early = takeEarlyRequestsData();
    const answers = early ? await early.answers : null;
    if (early && answers) seedEarlyAnswers(queryClient, trpcOptions, early.input, answers);
  })();
  return seeding;
}
