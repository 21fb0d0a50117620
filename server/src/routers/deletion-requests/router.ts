import { router } from '../../trpc/init';
import { create } from './create';
import { createInWorkspace } from './create-in-workspace';
import { importCsv } from './import-csv';
import { deleteAgain } from './delete-again';
import { listOrganization, listUser, listWorkspace } from './list';
import { bulkCancel, bulkRetry, countMatching } from './bulk';
import {
  auditTrail,
  cancel,
  cancelIntegration,
  checkStatus,
  checkStatusNow,
  get,
  retry,
  retryIntegration,
} from './actions';

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
