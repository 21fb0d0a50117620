import { router } from '../../trpc/init';
import { auditLog, auditLogActions } from './audit-log';
import { members } from './members';
import { openDuplicates } from './open-duplicates';
import { overview } from './overview';
import { personRequests } from './person-requests';
import { requestDetail } from './request-detail';
import { revealAuditTrail } from './reveal-audit-trail';
import { revealIdentifier } from './reveal-identifier';
import { searchRequests } from './search-requests';
import { setupProgress } from './setup-progress';
import { verifyAuditChain } from './verify-audit-chain';
import { workspaceUsage } from './workspace-usage';

/** Read models of the dashboard SPA; tRPC only, not part of the public REST API. */
export const dashboardRouter = router({
  overview,
  searchRequests,
  requestDetail,
  revealIdentifier,
  personRequests,
  openDuplicates,
  revealAuditTrail,
  auditLog,
  auditLogActions,
  verifyAuditChain,
  members,
  workspaceUsage,
  setupProgress,
});
