import { maskIdentifier } from '@shared/mask-identifier';
import type { TaskPage } from '@shared/schemas/manual-tasks';
import type { Db, DbOrTx } from '../../db/client';
import { storableValue } from '../../db/storable';
import { AppError } from '../../lib/errors';
import { taskTokenHash } from './task-links';

/** One message for every link that does not open, so a page says nothing of why or of which request. */
export const TASK_LINK_GONE =
  'This task link no longer opens: it was answered or withdrawn, it has expired, or it is not a link we sent.';

const linkTask = {
  id: true,
  organizationId: true,
  deletionRequestId: true,
  integrationRequestId: true,
  integrationName: true,
  owners: true,
  dueAt: true,
  tokenExpiresAt: true,
  tokenRevokedAt: true,
  answeredAt: true,
  organization: { select: { name: true } },
  integrationRequest: { select: { status: true, trackingId: true, configSnapshot: { select: { config: true } } } },
} as const;

/**
 * The task a link opens, or a 404 with TASK_LINK_GONE: not ours or altered, answered, revoked,
 * expired, or its integration request is no longer waiting for this task (canceled, retried).
 */
export async function taskOfLink(db: DbOrTx, token: string, now = new Date()) {
  const tokenHash = taskTokenHash(token);
  const task = tokenHash ? await db.manualTask.findUnique({ where: { tokenHash }, select: linkTask }) : null;
  const ir = task?.integrationRequest;
  if (
    !task ||
    !ir ||
    task.answeredAt ||
    task.tokenRevokedAt ||
    task.tokenExpiresAt <= now ||
    (ir.status !== 'PENDING' && ir.status !== 'PROCESSING') ||
    ir.trackingId !== task.id
  )
    throw new AppError('NOT_FOUND', TASK_LINK_GONE);
  return task;
}

/** The subject's identifiers (primary first), as the task page lists them. */
function identifiersOf(db: DbOrTx, deletionRequestId: string) {
  return db.requestIdentifier.findMany({
    where: { deletionRequestId, value: { not: null } },
    orderBy: [{ primary: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, type: true, primary: true, value: true },
  });
}

/** What the task page shows: the integration's instructions, and the identifiers masked until revealed. */
export async function openTaskPage(db: Db, token: string, now = new Date()): Promise<TaskPage> {
  const task = await taskOfLink(db, token, now);
  const snapshot = task.integrationRequest.configSnapshot.config as { instructions?: unknown } | null;
  const identifiers = await identifiersOf(db, task.deletionRequestId);
  return {
    organizationName: task.organization.name,
    integrationName: task.integrationName,
    instructions: typeof snapshot?.instructions === 'string' ? snapshot.instructions : '',
    dueAt: task.dueAt.toISOString(),
    identifiers: identifiers.map((i) => ({
      id: i.id,
      type: i.type,
      primary: i.primary,
      masked: maskIdentifier(i.value!),
    })),
  };
}

/** One identifier in full for the owner holding the link, with an audit entry (when, from which address). */
export async function revealTaskIdentifier(
  db: Db,
  token: string,
  identifierId: string,
  from: string,
  now = new Date(),
): Promise<{ value: string }> {
  const task = await taskOfLink(db, token, now);
  const identifier = (await identifiersOf(db, task.deletionRequestId)).find((i) => i.id === identifierId);
  if (!identifier) throw new AppError('NOT_FOUND', 'No such identifier in this task');
  await db.auditLog.create({
    data: storableValue({
      organizationId: task.organizationId,
      deletionRequestId: task.deletionRequestId,
      integrationRequestId: task.integrationRequestId,
      actorType: 'task_link',
      actorId: task.id,
      action: 'manual_task.identifier_revealed',
      summary: `An owner revealed the ${identifier.type ?? 'primary'} identifier on the task page of ${task.integrationName}`,
      details: { from, identifierId: identifier.id, owners: task.owners },
    }),
  });
  return { value: identifier.value! };
}
