import { createBrowserRouter } from 'react-router';
import { Loading, RouteError } from './components/states';

/** Shown while a first visit's screen code (and the Requests screen's data) loads. */
const initialLoading = (
  <main className="centered-page">
    <Loading />
  </main>
);

/**
 * Every screen is its own chunk, loaded when its route is first visited (the Requests screen's
 * data is asked for meanwhile). Sign-in stands alone; every other screen sits inside the chunk
 * with the tRPC and TanStack Query providers (components/app-providers.tsx).
 */
export function createAppRouter() {
  return createBrowserRouter([
    {
      path: '/sign-in',
      lazy: () => import('./routes/sign-in'),
      errorElement: <RouteError />,
      hydrateFallbackElement: initialLoading,
    },
    {
      lazy: () => import('./components/app-providers'),
      errorElement: <RouteError />,
      hydrateFallbackElement: initialLoading,
      children: [
        { path: '/sign-up', lazy: () => import('./routes/sign-up') },
        { path: '/forgot-password', lazy: () => import('./routes/forgot-password') },
        { path: '/reset-password', lazy: () => import('./routes/reset-password') },
        { path: '/verify-email', lazy: () => import('./routes/verify-email') },
        { path: '/invite/:token', lazy: () => import('./routes/accept-invitation') },
        { path: '/task', lazy: () => import('./routes/task') },
        {
          path: '/',
          lazy: () => import('./components/shell'),
          children: [
            { index: true, lazy: () => import('./routes/overview') },
            {
              path: 'requests',
              loader: async (args) => (await import('./lib/request-queries')).requestsLoader(args),
              lazy: () => import('./routes/requests'),
            },
            { path: 'requests/new', lazy: () => import('./routes/request-new') },
            { path: 'requests/import', lazy: () => import('./routes/request-import') },
            { path: 'requests/:requestId', lazy: () => import('./routes/request-detail') },
            { path: 'requests/:requestId/person', lazy: () => import('./routes/person') },
            { path: 'workspaces', lazy: () => import('./routes/workspaces') },
            { path: 'integrations', lazy: () => import('./routes/integrations') },
            { path: 'integrations/new', lazy: () => import('./routes/integration-form') },
            { path: 'integrations/:integrationId', lazy: () => import('./routes/integration-form') },
            { path: 'accounts', lazy: () => import('./routes/accounts') },
            { path: 'settings/tokens', lazy: () => import('./routes/tokens') },
            { path: 'settings/callbacks', lazy: () => import('./routes/callbacks') },
            { path: 'organization', lazy: () => import('./routes/organization') },
            { path: 'organization/audit-log', lazy: () => import('./routes/audit-log') },
            { path: '*', lazy: () => import('./routes/not-found') },
          ],
        },
      ],
    },
  ]);
}
