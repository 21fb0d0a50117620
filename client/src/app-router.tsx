import { createBrowserRouter } from 'react-router';
import { RouteError } from './components/states';
import { Shell } from './components/shell';
import { requestsLoader } from './lib/request-queries';

/** Every screen is its own chunk, loaded when its route is first visited (the Requests screen's data is asked for meanwhile). */
export function createAppRouter() {
  return createBrowserRouter([
    { path: '/sign-in', lazy: () => import('./routes/sign-in'), errorElement: <RouteError /> },
    { path: '/sign-up', lazy: () => import('./routes/sign-up'), errorElement: <RouteError /> },
    { path: '/forgot-password', lazy: () => import('./routes/forgot-password'), errorElement: <RouteError /> },
    { path: '/reset-password', lazy: () => import('./routes/reset-password'), errorElement: <RouteError /> },
    { path: '/verify-email', lazy: () => import('./routes/verify-email'), errorElement: <RouteError /> },
    { path: '/invite/:token', lazy: () => import('./routes/accept-invitation'), errorElement: <RouteError /> },
    {
      path: '/',
      element: <Shell />,
      errorElement: <RouteError />,
      children: [
        { index: true, lazy: () => import('./routes/overview') },
        { path: 'requests', loader: requestsLoader, lazy: () => import('./routes/requests') },
        { path: 'requests/new', lazy: () => import('./routes/request-new') },
        { path: 'requests/:requestId', lazy: () => import('./routes/request-detail') },
        { path: 'workspaces', lazy: () => import('./routes/workspaces') },
        { path: 'integrations', lazy: () => import('./routes/integrations') },
        { path: 'integrations/new', lazy: () => import('./routes/integration-form') },
        { path: 'integrations/:integrationId', lazy: () => import('./routes/integration-form') },
        { path: 'accounts', lazy: () => import('./routes/accounts') },
        { path: 'settings/tokens', lazy: () => import('./routes/tokens') },
        { path: 'organization', lazy: () => import('./routes/organization') },
        { path: 'organization/audit-log', lazy: () => import('./routes/audit-log') },
        { path: '*', lazy: () => import('./routes/not-found') },
      ],
    },
  ]);
}
