import { storedIntegrationType } from '@shared/integrations/connectors';
import { cancelReasonText, type CancelReason } from '@shared/cancel-reasons';
import { AppError, notFound } from '../../lib/errors';
import { identifierRedactor } from '../../integrations/runtime/redaction';
import type { Exchange } from '../../integrations/types';
import type { Actor } from '../../services/auth/actor';
import type { AccountDeps } from '../../services/accounts/accounts';
import { recordAudit } from '../../services/audit/record-audit';
import { currentAccountId, openDestination } from '../../services/integrations/destination';
import { manualTaskPort } from '../../services/manual-tasks/task-port';
import { wakeCallbackDispatchers } from '../../queue/wake-up';
import { handBackLeases, takeLease } from '../store/leases';
import { newLeaseOwner } from '../../queue/runner';
import { integrationSubject } from '../store/identities';
import { markCanceled } from '../store/reschedule';
import { lockDeletionRequest, rollUpDeletionRequest } from '../store/roll-up';
import { dbQuery } from '../store/sql';
import { assertTransition, isActive } from '../state-machine';
import { identifierLabel, trackedJobs } from '../../services/integrations/tracked-jobs';
import { deletionRequestOf, integrationRequestOf } from './lookup';

/**
 * How long a cancel holds the lease: longer than the longest call a destination may be given
 * (a webhook's `timeoutMs` is at most 120 s), so no worker takes the row while it runs.
 */
const CANCEL_LEASE_MS = 180_000;

/**
 * Cancels one integration request. Not sent yet (or waiting to retry): canceled here.
 * Sent and the destination supports it: its cancel operation is called. Otherwise refused.
 * Finished ones are never touched. The cancel holds the request's lease like a worker
 * does, so no worker runs a step of it meanwhile. With `deletionRequestId`, the integration
 * request must belong to it (404 otherwise).
 */
export async function cancelIntegrationRequest(
  deps: AccountDeps,
  actor: Actor,
  integrationRequestId: string,
  deletionRequestId?: string,
) {
  const ir = await integrationRequestOf(deps.prisma, actor, integrationRequestId, deletionRequestId);
  if (!isActive(ir.status))
    throw new AppError('CONFLICT', `This integration request has already finished (${ir.status}); nothing to cancel`);
  const owner = newLeaseOwner();
  const query = dbQuery(deps.prisma);
  if (!(await takeLease(query, ir.id, ir.status, owner, CANCEL_LEASE_MS))) {
    throw new AppError('CONFLICT', 'This integration request is being processed right now; try again in a few seconds');
  }
  const trail: Exchange[] = [];
  let message: string;
  // What the destination says may repeat a token it was sent, or the identifier: redacted before it is stored or shown.
  let redact = identifierRedactor(ir.deletionRequest.identifier);
  try {
    if (ir.trackingId) {
      // The values the deletion was sent for, the integration's type of identifier (each email of the person, say).
      const subject = await integrationSubject(query, {
        id: ir.id,
        deletionRequestId: ir.deletionRequest.id,
        consumesType: ir.consumesType,
        identifier: ir.deletionRequest.identifier ?? '',
      });
      redact = identifierRedactor(subject.redact);
      const type = storedIntegrationType(ir.integrationType);
      const opened = await openDestination(
        deps,
        {
          type,
          config: ir.configSnapshot.config,
          accountId: currentAccountId(ir),
          organizationId: actor.organizationId,
          integration: ir.integration && ir.integrationId ? { id: ir.integrationId } : null,
          request: {
            integrationType: type,
            integrationRequestId: ir.id,
            deletionRequestId: ir.deletionRequest.id,
            manualTasks: manualTaskPort(deps, ir.id),
          },
          subject: subject.redact,
        },
        trail,
      );
      const { destination } = opened;
      redact = opened.redact;
      if (!destination.driver.canCancel(destination.config) || !destination.driver.cancel) {
        throw new AppError(
          'CONFLICT',
          `${ir.integrationName} (${ir.integrationType}) does not support canceling a deletion it has accepted`,
        );
      }
      // Each job the destination runs for this request: one per value still in progress.
      const jobs = trackedJobs(ir.trackingId, subject.values.length);
      if (jobs.length === 0)
        throw new AppError(
          'CONFLICT',
          'The identifiers this deletion was sent for are no longer stored; it cannot be canceled at the destination',
        );
      const label = (at: number) =>
        subject.values.length > 1 ? `${identifierLabel(at, subject.values.length)}: ` : '';
      const results: { at: number; canceled: boolean; message: string }[] = [];
      for (const job of jobs) {
        const { value, callKey } = subject.values[job.at]!;
        const result = await destination.driver.cancel(
          opened.context({ identifier: value, trackingId: job.trackingId, callKey }),
        );
        results.push({ at: job.at, ...result });
      }
      const refused = results.filter((result) => !result.canceled);
      if (refused.length > 0)
        throw new AppError(
          'CONFLICT',
          `${ir.integrationName} refused to cancel: ${refused.map((r) => redact(label(r.at) + r.message)).join('; ')}`,
        );
      message = results.map((r) => redact(label(r.at) + r.message)).join('; ');
    } else {
      message = 'Canceled before the deletion was sent';
    }
  } catch (error) {
    await handBackLeases(query, owner, [ir.id]);
    await recordAudit(deps.prisma, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.cancel',
      outcome: 'REFUSED',
      summary: `Cancel refused: ${redact((error as Error).message)}`,
      details: JSON.parse(JSON.stringify({ exchanges: trail })),
    });
    throw error instanceof AppError
      ? error
      : new AppError('CONFLICT', `Could not cancel: ${redact((error as Error).message)}`);
  }
  const callbacks = await deps.prisma.$transaction(async (tx) => {
    const parent = await lockDeletionRequest(dbQuery(tx), ir.deletionRequest.id);
    if (!parent) throw notFound('Deletion request');
    assertTransition(ir.status, 'CANCELED');
    // The lease was lost meanwhile (a worker took the row): what it records stands, not a cancel.
    if (!(await markCanceled(dbQuery(tx), ir.id, owner)))
      throw new AppError(
        'CONFLICT',
        'The integration request changed while it was being canceled; reload and try again',
      );
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.cancel',
      outcome: 'CANCELED',
      summary: message,
      details: JSON.parse(JSON.stringify({ from: ir.status, to: 'CANCELED', exchanges: trail })),
    });
    return rollUpDeletionRequest(dbQuery(tx), ir.deletionRequest.id, parent);
  });
  // A cancel that finished the request recorded its deletion_request.completed callbacks.
  if (callbacks > 0) wakeCallbackDispatchers(deps.prisma);
  return { id: ir.id, status: 'CANCELED' as const, message };
}

/** Why a request is closed without being fulfilled, as given on cancel (both optional over the API). */
export interface CancelReasonInput {
  reason?: CancelReason;
  note?: string;
}

/**
 * Cancels every unfinished integration request that can be; reports those that cannot. The
 * reason is stored first, so the callbacks of the cancel that finishes the request carry it;
 * when nothing could be canceled, the reason the request had before is put back.
 */
export async function cancelDeletionRequest(
  deps: AccountDeps,
  actor: Actor,
  deletionRequestId: string,
  why: CancelReasonInput = {},
) {
  const dr = await deletionRequestOf(deps.prisma, actor, deletionRequestId);
  const active = dr.integrationRequests.filter((ir) => isActive(ir.status));
  if (active.length === 0) throw new AppError('CONFLICT', 'This request has finished; nothing to cancel');
  const before = await deps.prisma.deletionRequest.findUniqueOrThrow({
    where: { id: dr.id },
    select: { cancelReason: true, cancelNote: true },
  });
  const reason = { cancelReason: why.reason ?? null, cancelNote: why.note ?? null };
  await deps.prisma.deletionRequest.update({ where: { id: dr.id }, data: reason });
  const canceled: string[] = [];
  const refused: { id: string; reason: string }[] = [];
  for (const ir of active) {
    try {
      await cancelIntegrationRequest(deps, actor, ir.id, dr.id);
      canceled.push(ir.id);
    } catch (error) {
      refused.push({ id: ir.id, reason: (error as Error).message });
    }
  }
  if (canceled.length === 0) await deps.prisma.deletionRequest.update({ where: { id: dr.id }, data: before });
  const given = cancelReasonText(reason.cancelReason, reason.cancelNote);
  await recordAudit(deps.prisma, actor, {
    organizationId: actor.organizationId,
    deletionRequestId: dr.id,
    action: 'request.canceled',
    summary: `Cancel requested${given ? ` (${given})` : ''}: ${canceled.length} canceled, ${refused.length} could not be`,
    details: { canceled, refused, ...reason },
  });
  return { canceled, refused };
}
