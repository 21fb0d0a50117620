import { router } from '../trpc/init';
import { accountsRouter } from './accounts/router';
import { authRouter } from './auth/router';
import { integrationsRouter } from './integrations/router';
import { membersRouter } from './members/router';
import { dashboardRouter } from './dashboard/router';
import { deletionRequestsRouter } from './deletion-requests/router';
import { erasureChecksRouter } from './erasure-checks/router';
import { callbacksRouter } from './callbacks/router';
import { organizationRouter } from './organization/router';
import { tokensRouter } from './tokens/router';
import { workspacesRouter } from './workspaces/router';
import { deadlinesRouter } from './deadlines/router';
import { notificationsRouter } from './notifications/router';
import { identitiesRouter } from './identities/router';
import { manualTasksRouter } from './manual-tasks/router';

export const appRouter = router({
  auth: authRouter,
  organization: organizationRouter,
  tokens: tokensRouter,
  workspaces: workspacesRouter,
  deletionRequests: deletionRequestsRouter,
  erasureChecks: erasureChecksRouter,
  callbacks: callbacksRouter,
  accounts: accountsRouter,
  integrations: integrationsRouter,
  dashboard: dashboardRouter,
  members: membersRouter,
  deadlines: deadlinesRouter,
  notifications: notificationsRouter,
  identities: identitiesRouter,
  manualTasks: manualTasksRouter,
});

export type AppRouter = typeof appRouter;
