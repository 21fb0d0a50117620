import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { createAppRouter } from './app-router';
import { queryClient, trpcClient, trpcOptions } from './query';
import { ME_QUERY_OPTIONS, TRPCProvider } from './trpc';
import './styles.css';

const router = createAppRouter();

// Every signed-in screen first needs to know who is signed in: ask now, while the screen's
// code loads, instead of after it has rendered (one round trip less before the first data).
if (!/^\/(sign-in|sign-up|invite\/)/.test(window.location.pathname)) {
  void queryClient.prefetchQuery(trpcOptions.auth.me.queryOptions(undefined, ME_QUERY_OPTIONS));
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <RouterProvider router={router} />
      </TRPCProvider>
    </QueryClientProvider>
  </StrictMode>,
);
