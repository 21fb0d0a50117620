import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { dueNow } from '../store/reschedule';
import { dbQuery } from '../store/sql';
import { isActive } from '../state-machine';
import { wakeWorkers } from '../../queue/wake-up';
import { deletionRequestOf, integrationRequestOf } from './lookup';

type Checkable = { id: string; status: Parameters<typeof isActive>[0]; trackingId: string | null };

/** Brings one active integration request's next step forward to now, with its audit entry. */
async function bringForward(db: Db, actor: Actor, deletionRequestId: string, ir: Checkable) {
  await db.$transaction(async (tx) => {
    // A step that changed the status meanwhile has just run: nothing more to bring forward.
    await dueNow(dbQuery(tx), ir.id, ir.status);
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId,
      integrationRequestId: ir.id,
      action: 'deletion.check_requested',
      summary: ir.trackingId ? 'Status check requested' : 'Immediate attempt requested',
    });
  });
}

/**
 * An accepted async job is checked now instead of at its next scheduled poll (a waiting
 * attempt runs now). With `deletionRequestId`, the integration request must belong to it.
 */
export async function checkIntegrationRequestNow(
  db: Db,
  actor: Actor,
  integrationRequestId: string,
  deletionRequestId?: string,
) {
  const ir = await integrationRequestOf(db, actor, integrationRequestId, deletionRequestId);
  if (!isActive(ir.status)) throw new AppError('CONFLICT', `This integration request has finished (${ir.status})`);
  await bringForward(db, actor, ir.deletionRequest.id, ir);
  wakeWorkers(db);
  return { id: ir.id, status: ir.status, trackingId: ir.trackingId };
}

/** Every unfinished integration request of a deletion request is checked (or attempted) now. */
export async function checkDeletionRequestNow(db: Db, actor: Actor, deletionRequestId: string) {
  const dr = await deletionRequestOf(db, actor, deletionRequestId);
  const active = dr.integrationRequests.filter((ir) => isActive(ir.status));
  if (active.length === 0) throw new AppError('CONFLICT', 'This request has finished; there is no status to check');
  for (const ir of active) await bringForward(db, actor, dr.id, ir);
  wakeWorkers(db);
  return { checked: active.map((ir) => ir.id) };
}
