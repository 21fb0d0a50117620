import type { QueryClient } from '@tanstack/react-query';
import type { TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { EARLY_PROCEDURES, type EarlyAnswers } from '@shared/early-requests';
import type { AppRouter } from '@api';
import type { EarlyRequestsData } from './early-data';

/**
 * Puts the Requests page's first answers (one tRPC batch: who is signed in, the first page, the
 * filters' lists) into `queryClient` under the keys the screen's own queries use. Used by the
 * browser (query.ts) and by the server's rendering of the page (entry-server.tsx), so both
 * render from the same cache. An answer that is an error is left out: the screen asks again.
 */
export function seedEarlyAnswers(
  queryClient: QueryClient,
  trpc: TRPCOptionsProxy<AppRouter>,
  input: EarlyRequestsData['input'],
  answers: EarlyAnswers,
): void {
  const keys: Record<
    (typeof EARLY_PROCEDURES)[number],
    { key: readonly unknown[]; wrap?: (data: unknown) => unknown }
  > = {
    'auth.session': { key: trpc.auth.session.queryKey() },
    'dashboard.searchRequests': {
      key: trpc.dashboard.searchRequests.infiniteQueryKey(input),
      wrap: (data) => ({ pages: [data], pageParams: [undefined] }),
    },
    'workspaces.list': { key: trpc.workspaces.list.queryKey() },
    'dashboard.members': { key: trpc.dashboard.members.queryKey() },
  };
  EARLY_PROCEDURES.forEach((procedure, index) => {
    const answer = answers[index];
    if (!answer?.result) return;
    const { key, wrap } = keys[procedure];
    queryClient.setQueryData(key, wrap ? wrap(answer.result.data) : answer.result.data);
  });
}
