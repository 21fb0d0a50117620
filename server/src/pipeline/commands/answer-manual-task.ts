import { MANUAL_ANSWER_LABEL, type ManualTaskAnswerInput } from '@shared/schemas/manual-tasks';
import type { Db, DbOrTx } from '../../db/client';
import { storableValue } from '../../db/storable';
import type { Keyring } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { auditActor } from '../../services/audit/record-audit';
import { readEvidence, storeEvidence } from '../../services/manual-tasks/evidence';
import { taskOfLink } from '../../services/manual-tasks/task-page';
import { dueNow } from '../store/reschedule';
import { dbQuery } from '../store/sql';
import { wakeWorkers } from '../../queue/wake-up';

/** Who answers: the owner holding the task link, or a member (dashboard) or partner system (API) by the task's id. */
export type TaskAnswerer = { token: string } | { taskId: string; actor: Actor; via: 'member' | 'api' };

const NO_OPEN_TASK = 'No open manual task with this id: it was answered or withdrawn, or it does not exist';

async function taskById(tx: DbOrTx, actor: Actor, taskId: string) {
  const task = await tx.manualTask.findFirst({
    where: { id: taskId, organizationId: actor.organizationId },
    select: {
      id: true,
      organizationId: true,
      workspaceId: true,
      deletionRequestId: true,
      integrationRequestId: true,
      integrationName: true,
      owners: true,
      answeredAt: true,
      tokenRevokedAt: true,
      integrationRequest: { select: { status: true, trackingId: true } },
    },
  });
  if (!task) throw new AppError('NOT_FOUND', NO_OPEN_TASK);
  assertWorkspaceAllowed(actor, task.workspaceId);
  const ir = task.integrationRequest;
  if (
    task.answeredAt ||
    task.tokenRevokedAt ||
    (ir.status !== 'PENDING' && ir.status !== 'PROCESSING') ||
    ir.trackingId !== task.id
  )
    throw new AppError('NOT_FOUND', NO_OPEN_TASK);
  return task;
}

/**
 * Records the answer to a manual task (with its sealed evidence file), revokes the task's link
 * and brings the integration request's next status check forward: the engine then finishes
 * it SUCCESS (done, not found) or FAILED (cannot), as for any destination. An evidence file over
 * 10 MB (413) or of a refused type (415) is refused before anything is written.
 */
export async function answerManualTask(
  deps: { prisma: Db; keyring: Keyring },
  answerer: TaskAnswerer,
  input: ManualTaskAnswerInput,
  from: string,
  now = new Date(),
) {
  const file = input.evidence ? readEvidence(input.evidence) : null;
  const answered = await deps.prisma.$transaction(async (tx) => {
    const task =
      'token' in answerer
        ? await taskOfLink(tx, answerer.token, now)
        : await taskById(tx, answerer.actor, answerer.taskId);
    const via = 'token' in answerer ? 'link' : answerer.via;
    const by =
      'token' in answerer
        ? (task.owners as string[]).join(', ')
        : ((await tx.user.findUnique({ where: { id: answerer.actor.userId }, select: { email: true } }))?.email ??
          answerer.actor.userId);
    // Only the first answer counts: a second one (a double click, two owners at once) finds the task closed.
    const { count } = await tx.manualTask.updateMany({
      where: { id: task.id, answeredAt: null, tokenRevokedAt: null },
      data: {
        answer: input.answer,
        answerNote: input.note ?? null,
        answeredAt: now,
        answeredVia: via,
        answeredBy: by,
        answeredFrom: from,
        tokenRevokedAt: now,
      },
    });
    if (count !== 1)
      throw new AppError('NOT_FOUND', 'token' in answerer ? 'This task was answered already' : NO_OPEN_TASK);
    if (file) await storeEvidence(tx, deps.keyring, task.organizationId, task.id, file);
    const actor = 'token' in answerer ? { actorType: 'task_link', actorId: task.id } : auditActor(answerer.actor);
    await tx.auditLog.create({
      data: storableValue({
        ...actor,
        organizationId: task.organizationId,
        deletionRequestId: task.deletionRequestId,
        integrationRequestId: task.integrationRequestId,
        action: 'manual_task.answered',
        outcome: input.answer,
        summary: `${MANUAL_ANSWER_LABEL[input.answer]}: confirmed by a person (${by}) through ${via === 'link' ? 'the task link' : via === 'api' ? 'the API' : 'the dashboard'}, from ${from}`,
        details: {
          answer: input.answer,
          note: input.note ?? null,
          via,
          by,
          from,
          answeredAt: now.toISOString(),
          file: file
            ? {
                fileName: file.fileName,
                contentType: file.contentType,
                sizeBytes: file.bytes.length,
                sha256: file.sha256,
              }
            : null,
        },
      }),
    });
    await dueNow(dbQuery(tx), task.integrationRequestId, task.integrationRequest.status);
    return task;
  });
  wakeWorkers(deps.prisma);
  return {
    id: answered.id,
    answer: input.answer,
    answeredAt: now.toISOString(),
    integrationRequestId: answered.integrationRequestId,
    deletionRequestId: answered.deletionRequestId,
  };
}
