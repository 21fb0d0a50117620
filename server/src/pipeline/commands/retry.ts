import type { RetryConfiguration } from '@shared/schemas/deletion-request';
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
import { assertTransition, isRetryable } from '../state-machine';
import { wakeWorkers } from '../../queue/wake-up';
import { enabledIntegrations } from './create';
import { deletionRequestOf, integrationRequestOf } from './lookup';

export interface RetryOptions {
  /** `submitted` (default) keeps the frozen snapshot; `current` takes the integration's configuration now. */
  configuration?: RetryConfiguration;
  /** When given, the integration request must belong to this deletion request (404 otherwise). */
  deletionRequestId?: string;
}

type Retryable = Awaited<ReturnType<typeof integrationRequestOf>>;

/**
 * Checked under the request's row lock, so a retry and the retention policy cannot interleave:
 * once the identifier is hashed or deleted, a retry would send the hash (matching nothing,
 * and "succeeding") or nothing at all.
 */
const IDENTIFIER_REMOVED =
  'The identifier was hashed or deleted by the retention policy, so it can no longer be sent; submit a new request to delete again';

/** The integration's configuration now, for a retry with the current configuration; refused when there is none to take. */
function currentConfiguration(ir: Retryable) {
  if (!ir.integration || ir.integrationId === null) {
    throw new AppError(
      'CONFLICT',
      `The integration ${ir.integrationName} was deleted; retry with the configuration it was submitted with`,
    );
  }
  if (!ir.integration.enabled) {
    throw new AppError(
      'CONFLICT',
      `The integration ${ir.integration.name} is disabled; enable it, or retry with the configuration it was submitted with`,
    );
  }
  return { integrationName: ir.integration.name, configSnapshot: ir.integration.config };
}

/** FAILED or ERROR back to STAGING, due now; the attempt budget starts again. */
export async function retryIntegrationRequest(
  db: Db,
  actor: Actor,
  integrationRequestId: string,
  options: RetryOptions = {},
) {
  const ir = await integrationRequestOf(db, actor, integrationRequestId, options.deletionRequestId);
  await requeue(db, actor, ir.deletionRequest.id, [ir], options.configuration ?? 'submitted');
  wakeWorkers(db);
  return { id: ir.id, status: 'STAGING' as const };
}

/**
 * Sends failed integration requests of one deletion request again, all or none: one
 * transaction under the request's row lock, so a retry that finds one of them changed
 * meanwhile (a 409) has re-queued none of the others.
 */
async function requeue(
  db: Db,
  actor: Actor,
  deletionRequestId: string,
  irs: Retryable[],
  configuration: RetryConfiguration,
) {
  for (const ir of irs)
    if (!isRetryable(ir.status))
      throw new AppError('CONFLICT', `Only failed integration requests can be retried; this one is ${ir.status}`);
  const current = new Map(
    configuration === 'current' ? irs.map((ir) => [ir.id, currentConfiguration(ir)] as const) : [],
  );
  await db.$transaction(async (tx) => {
    const query = dbQuery(tx);
    const parent = await lockDeletionRequest(query, deletionRequestId);
    if (!parent) throw notFound('Deletion request');
    if (parent.identifierRemoved) throw new AppError('CONFLICT', IDENTIFIER_REMOVED);
    for (const ir of irs) {
      assertTransition(ir.status, 'STAGING');
      const taken = current.get(ir.id);
      if (!(await requeueForRetry(query, ir.id, ir.status, taken)))
        throw new AppError('CONFLICT', 'The integration request changed meanwhile; reload and try again');
      await recordAudit(tx, actor, {
        organizationId: actor.organizationId,
        deletionRequestId,
        integrationRequestId: ir.id,
        action: 'deletion.retried',
        outcome: 'STAGING',
        summary: taken
          ? `Retry requested with the integration's current configuration (was ${ir.status})`
          : `Retry requested (was ${ir.status})`,
        details: { from: ir.status, to: 'STAGING', configuration },
      });
    }
    await rollUpDeletionRequest(query, deletionRequestId, parent);
  });
}

/**
 * Retries every failed integration request of a deletion request (all or none). A request
 * that had no enabled integrations is fanned out to the workspace's integrations enabled now
 * (their current configuration, whichever is asked for). With `current`, every failed one is
 * checked first, so nothing is retried when one of them cannot take its current configuration.
 */
export async function retryDeletionRequest(
  db: Db,
  actor: Actor,
  deletionRequestId: string,
  options: Pick<RetryOptions, 'configuration'> = {},
) {
  const dr = await deletionRequestOf(db, actor, deletionRequestId);
  if (dr.integrationRequests.length === 0) return retryWithIntegrationsEnabledNow(db, actor, dr);
  const failed = dr.integrationRequests.filter((ir) => isRetryable(ir.status));
  if (failed.length === 0)
    throw new AppError('CONFLICT', 'Nothing to retry: no integration request of this deletion request has failed');
  const loaded = await Promise.all(failed.map((ir) => integrationRequestOf(db, actor, ir.id, dr.id)));
  await requeue(db, actor, dr.id, loaded, options.configuration ?? 'submitted');
  wakeWorkers(db);
  return { retried: failed.map((ir) => ir.id) };
}

async function retryWithIntegrationsEnabledNow(db: Db, actor: Actor, dr: { id: string; workspaceId: string }) {
  const result = await db.$transaction(async (tx) => {
    const query = dbQuery(tx);
    const parent = await lockDeletionRequest(query, dr.id);
    if (!parent) throw notFound('Deletion request');
    if (parent.identifierRemoved) throw new AppError('CONFLICT', IDENTIFIER_REMOVED);
    if ((await countIntegrationRequests(tx, dr.id)) > 0)
      throw new AppError('CONFLICT', 'The request changed meanwhile; reload and try again');
    const integrations = await enabledIntegrations(tx, dr.workspaceId);
    if (integrations.length === 0) throw new AppError('CONFLICT', 'The workspace still has no enabled integrations');
    const rows = integrations.map((integration) => ({
      id: newId(ID_PREFIX.integrationRequest),
      integrationId: integration.id,
      integrationName: integration.name,
      integrationType: integration.type,
      configSnapshot: integration.config,
      accountId: integration.accountId,
      consumesType: integration.consumesType,
    }));
    await fanOutLate(tx, dr.id, rows, new Date());
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: dr.id,
      action: 'request.retried',
      summary: `Sent to ${integrations.length} integration(s) enabled now`,
    });
    await rollUpDeletionRequest(query, dr.id, parent);
    return { retried: rows.map((r) => r.id) };
  });
  wakeWorkers(db);
  return result;
}
