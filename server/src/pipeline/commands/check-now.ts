import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { dueNow } from '../store/reschedule';
import { dbQuery } from '../store/sql';
import { isActive } from '../worker/state-machine';
import { wakeWorkers } from '../worker/wake-up';
import { integrationRequestOf } from './lookup';

/** An accepted async job is checked now instead of at its next scheduled poll (a waiting attempt runs now). */
export async function checkIntegrationRequestNow(db: Db, actor: Actor, integrationRequestId: string) {
  const ir = await integrationRequestOf(db, actor, integrationRequestId);
  if (!isActive(ir.status)) throw new AppError('CONFLICT', `This integration request has finished (${ir.status})`);
  await db.$transaction(async (tx) => {
    // A step that changed the status meanwhile has just run: nothing more to bring forward.
    await dueNow(dbQuery(tx), ir.id, ir.status);
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      deletionRequestId: ir.deletionRequest.id,
      integrationRequestId: ir.id,
      action: 'deletion.check_requested',
      summary: ir.trackingId ? 'Status check requested' : 'Immediate attempt requested',
    });
  });
  wakeWorkers(db);
  return { id: ir.id, status: ir.status };
}
