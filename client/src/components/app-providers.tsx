import { QueryClientProvider } from '@tanstack/react-query';
import { Outlet } from 'react-router';
import { queryClient, trpcClient } from '../query';
import { TRPCProvider } from '../trpc';

/**
 * The tRPC client and TanStack Query cache around every screen but sign-in: loaded as its own
 * chunk, so the sign-in page (the first page most visits see) does not carry them.
 */
export function Component() {
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <Outlet />
      </TRPCProvider>
    </QueryClientProvider>
  );
}
