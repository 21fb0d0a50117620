import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { Route, Routes, StaticRouter } from 'react-router';
import type { AppRouter } from '@api';
import { Component as Shell } from './components/shell';
import { seedEarlyAnswers } from './lib/early-answers';
import type { EarlyAnswers } from '@shared/early-requests';
import type { EarlyRequestsData } from './lib/early-data';
import { inViewerTimeZone } from './lib/format';
import { withTimeZoneChoice, type TimeZoneChoice } from './lib/time-zone';
import { Component as Requests } from './routes/requests';
import { createTrpcClient, TRPCProvider } from './trpc';

/**
 * Rows drawn on the server: a first screen's worth on a tall desktop window (about eight show at
 * 1440x900, below the folded filters). Each row is work for the browser before it can paint any;
 * the app draws the rest.
 */
const FIRST_SCREEN_ROWS = 12;

// Never called while rendering on the server (queries there are answered from the seeded cache).
const trpcClient = createTrpcClient();

/**
 * The Requests screen, signed-in frame included, rendered to HTML on the server from the same
 * answers the browser then starts from (its first tRPC batch), so the first rows show as the
 * page arrives. The browser's app replaces this markup once its code and data are ready
 * (client/src/main.tsx). `viewerZone` is the zone the browser shows times in, `choice` whether
 * the viewer chose UTC (the toggle and the date filters' labels say so).
 */
export function renderRequestsScreen(
  input: EarlyRequestsData['input'],
  answers: EarlyAnswers,
  viewerZone: string | undefined,
  choice: TimeZoneChoice = 'local',
): string {
  // One cache per page: nothing one viewer sees can reach another's page.
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  seedEarlyAnswers(queryClient, createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient }), input, answers);
  return withTimeZoneChoice(choice, () =>
    inViewerTimeZone(viewerZone, () =>
      renderToString(
        <StrictMode>
          <QueryClientProvider client={queryClient}>
            <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
              <StaticRouter location="/requests">
                <Routes>
                  <Route element={<Shell />}>
                    <Route path="/requests" element={<Requests firstRows={FIRST_SCREEN_ROWS} />} />
                  </Route>
                </Routes>
              </StaticRouter>
            </TRPCProvider>
          </QueryClientProvider>
        </StrictMode>,
      ),
    ),
  );
}
