import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { createAppRouter } from './app-router';
import { createQueryClient, createTrpcClient, TRPCProvider } from './trpc';
import './styles.css';

const trpcClient = createTrpcClient();
const ME_PATH = 'auth.me';
const queryClient = createQueryClient((queryKey) => {
  // Another call found the session gone: re-check who we are and the shell sends us to sign in.
  const path = Array.isArray(queryKey[0]) ? (queryKey[0] as string[]).join('.') : '';
  if (path !== ME_PATH) void queryClient.invalidateQueries({ queryKey: [['auth', 'me']] });
});
const router = createAppRouter();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <RouterProvider router={router} />
      </TRPCProvider>
    </QueryClientProvider>
  </StrictMode>,
);
