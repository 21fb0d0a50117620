import { router } from '../../trpc/init';
import { create } from './create';
import { createInWorkspace } from './create-in-workspace';
import { importCsv } from './import-csv';
import { deleteAgain } from './delete-again';
import { listOrganization, listUser, listWorkspace } from './list';
import { bulkCancel, bulkRetry, countMatching } from './bulk';
import { auditTrail, get } from './get';
import { cancel, cancelIntegration } from './cancel';
import { retry, retryIntegration } from './retry';
import { checkStatus, checkStatusNow } from './check-status';

export const deletionRequestsRouter = router({
  create,
  createInWorkspace,
  importCsv,
  deleteAgain,
  listOrganization,
  listWorkspace,
  listUser,
  get,
  auditTrail,
  retry,
  retryIntegration,
  checkStatus,
  checkStatusNow,
  cancel,
  cancelIntegration,
  bulkRetry,
  bulkCancel,
  countMatching,
});
