import type { Db } from '../../db/client';
import { AppError, notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import type { Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { fanOutLate } from '../store/fan-out';
import { countIntegrationRequests } from '../store/lookup';
import { requeueForRetry } from '../store/reschedule';
import { lockDeletionRequest, rollUpDeletionRequest } from '../store/roll-up';
import { dbQuery } from '../store/sql';
import { assertTransition, isRetryable } from '../worker/state-machine';
import { wakeWorkers } from '../worker/wake-up';
import { enabledIntegrations } from './create';
import { deletionRequestOf, integrationRequestOf } from './lookup';

/** FAILED or ERROR back to STAGING, due now; the attempt budget starts again. */
export async function retryIntegrationRequest(db: Db, actor: Actor, integrationRequestId: string) {
  const ir = await integrationRequestOf(db, actor, integrationRequestId);
  if (!isRetryable(ir.status)) throw new AppError('CONFLICT', `Only failed integration requests can be retried; this one is ${ir.status}`);
  await db.$transaction(async (tx) => {
    const query = dbQuery(tx);
    const parent = await lockDeletionRequest(query, ir.deletionRequest.id);
    if (!parent) throw notFound('Deletion request');
    assertTransition(ir.status, 'STAGING');
    if (!(await requeueForRetry(query, ir.id, ir.status))) throw new AppError('CONFLICT', 'The integration request changed meanwhile; reload and try again');
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.retried',
      outcome: 'STAGING',
      summary: `Retry requested (was ${ir.status})`,
      details: { from: ir.status, to: 'STAGING' },
    });
    await rollUpDeletionRequest(query, ir.deletionRequest.id, parent);
  });
  wakeWorkers(db);
  return { id: ir.id, status: 'STAGING' as const };
}

/**
 * Retries every failed integration request of a deletion request. A request that had no
 * enabled integrations is fanned out to the workspace's integrations enabled now.
 */
export async function retryDeletionRequest(db: Db, actor: Actor, deletionRequestId: string) {
  const dr = await deletionRequestOf(db, actor, deletionRequestId);
  if (dr.integrationRequests.length === 0) return retryWithIntegrationsEnabledNow(db, actor, dr);
  const failed = dr.integrationRequests.filter((ir) => isRetryable(ir.status));
  if (failed.length === 0) throw new AppError('CONFLICT', 'Nothing to retry: no integration request of this deletion request has failed');
  for (const ir of failed) await retryIntegrationRequest(db, actor, ir.id);
  return { retried: failed.map((ir) => ir.id) };
}

async function retryWithIntegrationsEnabledNow(db: Db, actor: Actor, dr: { id: string; workspaceId: string; identifier: string | null }) {
  if (dr.identifier === null) throw new AppError('CONFLICT', 'The identifier was removed by the retention policy');
  const result = await db.$transaction(async (tx) => {
    const query = dbQuery(tx);
    const parent = await lockDeletionRequest(query, dr.id);
    if (!parent) throw notFound('Deletion request');
    if ((await countIntegrationRequests(tx, dr.id)) > 0) throw new AppError('CONFLICT', 'The request changed meanwhile; reload and try again');
    const integrations = await enabledIntegrations(tx, dr.workspaceId);
    if (integrations.length === 0) throw new AppError('CONFLICT', 'The workspace still has no enabled integrations');
    const rows = integrations.map((integration) => ({
      id: newId(ID_PREFIX.integrationRequest),
      integrationId: integration.id,
      integrationName: integration.name,
      integrationType: integration.type,
      configSnapshot: integration.config,
      accountId: integration.accountId,
    }));
    await fanOutLate(tx, dr.id, rows, new Date());
    await recordAudit(tx, actor, { organizationId: actor.organizationId, deletionRequestId: dr.id, action: 'request.retried', summary: `Sent to ${integrations.length} integration(s) enabled now` });
    await rollUpDeletionRequest(query, dr.id, parent);
    return { retried: rows.map((r) => r.id) };
  });
  wakeWorkers(db);
  return result;
}
