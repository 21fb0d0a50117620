import { router } from '../trpc/init';
import { authRouter } from './auth/router';
import { dashboardRouter } from './dashboard/router';
import { deletionRequestsRouter } from './deletion-requests/router';
import { organizationRouter } from './organization/router';
import { tokensRouter } from './tokens/router';
import { workspacesRouter } from './workspaces/router';

export const appRouter = router({
  auth: authRouter,
  organization: organizationRouter,
  tokens: tokensRouter,
  workspaces: workspacesRouter,
  deletionRequests: deletionRequestsRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;
