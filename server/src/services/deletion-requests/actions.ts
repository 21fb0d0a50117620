import type { Db } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { AppError, notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { WORK_CHANNEL } from '../../engine/deps';
import { currentAccountId, driverContext, loadDestination } from '../../engine/destination';
import { lockDeletionRequest, rollUpDeletionRequest } from '../../engine/roll-up';
import { prismaQuery } from '../../engine/sql';
import { assertTransition, isActive, isRetryable } from '../../engine/state-machine';
import type { Exchange } from '../../integrations/types';
import type { Actor } from '../auth/actor';
import type { AccountDeps } from '../accounts/accounts';
import { recordAudit } from '../audit/record-audit';

const irSelect = {
  id: true,
  status: true,
  trackingId: true,
  lockedUntil: true,
  integrationName: true,
  integrationType: true,
  configSnapshot: true,
  accountId: true,
  integration: { select: { accountId: true } },
  deletionRequest: { select: { id: true, organizationId: true, identifier: true, workspaceId: true } },
} satisfies Prisma.IntegrationRequestSelect;

async function findIntegrationRequest(db: Db, actor: Actor, integrationRequestId: string) {
  const ir = await db.integrationRequest.findFirst({
    where: { id: integrationRequestId, deletionRequest: { organizationId: actor.organizationId } },
    select: irSelect,
  });
  if (!ir) throw notFound('Integration request');
  return ir;
}

async function findDeletionRequest(db: Db, actor: Actor, deletionRequestId: string) {
  const dr = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { id: true, workspaceId: true, identifier: true, integrationRequests: { select: { id: true, status: true } } },
  });
  if (!dr) throw notFound('Deletion request');
  return dr;
}

const notify = (tx: Prisma.TransactionClient) => tx.$executeRaw`SELECT pg_notify(${WORK_CHANNEL}, '')`;

/** FAILED or ERROR back to STAGING, due now; the attempt budget starts again. */
export async function retryIntegrationRequest(db: Db, actor: Actor, integrationRequestId: string) {
  const ir = await findIntegrationRequest(db, actor, integrationRequestId);
  if (!isRetryable(ir.status)) throw new AppError('CONFLICT', `Only failed integration requests can be retried; this one is ${ir.status}`);
  await db.$transaction(async (tx) => {
    const parent = await lockDeletionRequest(prismaQuery(tx), ir.deletionRequest.id);
    if (!parent) throw notFound('Deletion request');
    assertTransition(ir.status, 'STAGING');
    const updated = await tx.integrationRequest.updateMany({
      where: { id: ir.id, status: ir.status },
      data: { status: 'STAGING', attempts: 0, trackingId: null, lastError: null, completedAt: null, nextAttemptAt: new Date(), lockedBy: null, lockedUntil: null },
    });
    if (updated.count === 0) throw new AppError('CONFLICT', 'The integration request changed meanwhile; reload and try again');
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.retried',
      outcome: 'STAGING',
      summary: `Retry requested (was ${ir.status})`,
      details: { from: ir.status, to: 'STAGING' },
    });
    await rollUpDeletionRequest(prismaQuery(tx), ir.deletionRequest.id, parent);
    await notify(tx);
  });
  return { id: ir.id, status: 'STAGING' as const };
}

/**
 * Retries every failed integration request of a deletion request. A request that had no
 * enabled integrations is fanned out to the workspace's integrations enabled now.
 */
export async function retryDeletionRequest(db: Db, actor: Actor, deletionRequestId: string) {
  const dr = await findDeletionRequest(db, actor, deletionRequestId);
  if (dr.integrationRequests.length === 0) return fanOutLate(db, actor, dr);
  const failed = dr.integrationRequests.filter((ir) => isRetryable(ir.status));
  if (failed.length === 0) throw new AppError('CONFLICT', 'Nothing to retry: no integration request of this deletion request has failed');
  for (const ir of failed) await retryIntegrationRequest(db, actor, ir.id);
  return { retried: failed.map((ir) => ir.id) };
}

async function fanOutLate(db: Db, actor: Actor, dr: { id: string; workspaceId: string; identifier: string | null }) {
  if (dr.identifier === null) throw new AppError('CONFLICT', 'The identifier was removed by the retention policy');
  return db.$transaction(async (tx) => {
    const parent = await lockDeletionRequest(prismaQuery(tx), dr.id);
    if (!parent) throw notFound('Deletion request');
    const existing = await tx.integrationRequest.count({ where: { deletionRequestId: dr.id } });
    if (existing > 0) throw new AppError('CONFLICT', 'The request changed meanwhile; reload and try again');
    const integrations = await tx.integration.findMany({ where: { workspaceId: dr.workspaceId, enabled: true }, select: { id: true, name: true, type: true, config: true, accountId: true } });
    if (integrations.length === 0) throw new AppError('CONFLICT', 'The workspace still has no enabled integrations');
    const now = new Date();
    const ids = integrations.map(() => newId(ID_PREFIX.integrationRequest));
    await tx.integrationRequest.createMany({
      data: integrations.map((integration, i) => ({
        id: ids[i]!,
        deletionRequestId: dr.id,
        integrationId: integration.id,
        integrationName: integration.name,
        integrationType: integration.type,
        configSnapshot: integration.config as Prisma.InputJsonValue,
        accountId: integration.accountId,
        nextAttemptAt: now,
      })),
    });
    await recordAudit(tx, actor, { organizationId: actor.organizationId, deletionRequestId: dr.id, action: 'request.retried', summary: `Sent to ${integrations.length} integration(s) enabled now` });
    await rollUpDeletionRequest(prismaQuery(tx), dr.id, parent);
    await notify(tx);
    return { retried: ids };
  });
}

/** An accepted async job is checked now instead of at its next scheduled poll. */
export async function checkIntegrationRequestNow(db: Db, actor: Actor, integrationRequestId: string) {
  const ir = await findIntegrationRequest(db, actor, integrationRequestId);
  if (!isActive(ir.status)) throw new AppError('CONFLICT', `This integration request has finished (${ir.status})`);
  await db.$transaction(async (tx) => {
    await tx.integrationRequest.updateMany({ where: { id: ir.id, status: ir.status }, data: { nextAttemptAt: new Date() } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.check_requested',
      summary: ir.trackingId ? 'Status check requested' : 'Immediate attempt requested',
    });
    await notify(tx);
  });
  return { id: ir.id, status: ir.status };
}

const CANCEL_LEASE_MS = 60_000;

/**
 * Cancels one integration request. Not sent yet (or waiting to retry): canceled here.
 * Sent and the destination supports it: its cancel operation is called. Otherwise refused.
 * Finished ones are never touched.
 */
export async function cancelIntegrationRequest(deps: AccountDeps, actor: Actor, integrationRequestId: string) {
  const ir = await findIntegrationRequest(deps.prisma, actor, integrationRequestId);
  if (!isActive(ir.status)) throw new AppError('CONFLICT', `This integration request has already finished (${ir.status}); nothing to cancel`);
  const owner = `cancel:${actor.userId}:${newId('c')}`;
  const now = new Date();
  // Take the lease, so no worker runs this request while it is being canceled.
  const leased = await deps.prisma.integrationRequest.updateMany({
    where: { id: ir.id, status: ir.status, OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }] },
    data: { lockedBy: owner, lockedUntil: new Date(now.getTime() + CANCEL_LEASE_MS) },
  });
  if (leased.count === 0) throw new AppError('CONFLICT', 'This integration request is being processed right now; try again in a few seconds');
  const trail: Exchange[] = [];
  let message: string;
  try {
    if (ir.trackingId) {
      const destination = await loadDestination(deps, {
        type: ir.integrationType,
        config: ir.configSnapshot,
        accountId: currentAccountId(ir),
        organizationId: actor.organizationId,
      });
      if (!destination.driver.canCancel(destination.config) || !destination.driver.cancel) {
        throw new AppError('CONFLICT', `${ir.integrationName} (${ir.integrationType}) does not support canceling a deletion it has accepted`);
      }
      const result = await destination.driver.cancel(
        driverContext(
          deps,
          destination,
          {
            integrationType: ir.integrationType,
            integrationRequestId: ir.id,
            deletionRequestId: ir.deletionRequest.id,
            identifier: ir.deletionRequest.identifier ?? '',
            trackingId: ir.trackingId,
          },
          trail,
          now,
        ),
      );
      if (!result.canceled) throw new AppError('CONFLICT', `${ir.integrationName} refused to cancel: ${result.message}`);
      message = result.message;
    } else {
      message = 'Canceled before the deletion was sent';
    }
  } catch (error) {
    await deps.prisma.integrationRequest.updateMany({ where: { id: ir.id, lockedBy: owner }, data: { lockedBy: null, lockedUntil: null } });
    await recordAudit(deps.prisma, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.cancel',
      outcome: 'REFUSED',
      summary: `Cancel refused: ${(error as Error).message}`,
      details: JSON.parse(JSON.stringify({ exchanges: trail })),
    });
    throw error instanceof AppError ? error : new AppError('CONFLICT', `Could not cancel: ${(error as Error).message}`);
  }
  await deps.prisma.$transaction(async (tx) => {
    const parent = await lockDeletionRequest(prismaQuery(tx), ir.deletionRequest.id);
    if (!parent) throw notFound('Deletion request');
    assertTransition(ir.status, 'CANCELED');
    await tx.integrationRequest.updateMany({
      where: { id: ir.id, lockedBy: owner },
      data: { status: 'CANCELED', completedAt: new Date(), nextAttemptAt: null, lockedBy: null, lockedUntil: null },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.cancel',
      outcome: 'CANCELED',
      summary: message,
      details: JSON.parse(JSON.stringify({ from: ir.status, to: 'CANCELED', exchanges: trail })),
    });
    await rollUpDeletionRequest(prismaQuery(tx), ir.deletionRequest.id, parent);
  });
  return { id: ir.id, status: 'CANCELED' as const, message };
}

/** Cancels every unfinished integration request that can be; reports those that cannot. */
export async function cancelDeletionRequest(deps: AccountDeps, actor: Actor, deletionRequestId: string) {
  const dr = await findDeletionRequest(deps.prisma, actor, deletionRequestId);
  const active = dr.integrationRequests.filter((ir) => isActive(ir.status));
  if (active.length === 0) throw new AppError('CONFLICT', 'This request has finished; nothing to cancel');
  const canceled: string[] = [];
  const refused: { id: string; reason: string }[] = [];
  for (const ir of active) {
    try {
      await cancelIntegrationRequest(deps, actor, ir.id);
      canceled.push(ir.id);
    } catch (error) {
      refused.push({ id: ir.id, reason: (error as Error).message });
    }
  }
  await recordAudit(deps.prisma, actor, {
    organizationId: actor.organizationId,
    deletionRequestId: dr.id,
    action: 'request.canceled',
    summary: `Cancel requested: ${canceled.length} canceled, ${refused.length} could not be`,
    details: { canceled, refused },
  });
  return { canceled, refused };
}
