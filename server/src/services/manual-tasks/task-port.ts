import type { ManualConfig } from '@shared/integrations/manual';
import type { ManualAnswer, ManualTaskPort } from '../../integrations/manual/port';
import { TransientError } from '../../integrations/types';
import { newId } from '../../lib/ids';
import type { ServiceDeps } from '../deps';
import { mailTask } from './task-mail';
import { newTaskToken, taskLink, taskLinkExpiry } from './task-links';

const DAY_MS = 86_400_000;
const ANSWERS = ['done', 'not_found', 'cannot'] as const;

/** Tasks whose link still opens (not answered, not revoked); expiry is checked where the link is used. */
export const openTaskWhere = { answeredAt: null, tokenRevokedAt: null } as const;

/** The manual tasks of one integration request, as the engine hands them to the manual driver. */
export function manualTaskPort(
  deps: Pick<ServiceDeps, 'prisma'> & { config?: ServiceDeps['config'] },
  integrationRequestId: string,
  now = () => new Date(),
): ManualTaskPort {
  const db = deps.prisma;
  return {
    async open(config: ManualConfig) {
      // A step repeated after a crash finds the task it opened: the owners already have its link.
      const existing = await db.manualTask.findFirst({
        where: { integrationRequestId, ...openTaskWhere },
        orderBy: { createdAt: 'desc' },
        select: { id: true },
      });
      if (existing) return { taskId: existing.id, mailed: 0 };
      const serviceConfig = deps.config;
      if (!serviceConfig) throw new TransientError('This process cannot mail tasks');
      const ir = await db.integrationRequest.findUniqueOrThrow({
        where: { id: integrationRequestId },
        select: {
          integrationName: true,
          deletionRequest: {
            select: {
              id: true,
              organizationId: true,
              workspaceId: true,
              dueAt: true,
              organization: { select: { name: true } },
            },
          },
        },
      });
      const dr = ir.deletionRequest;
      const openedAt = now();
      const dueAt = new Date(openedAt.getTime() + config.daysToComplete * DAY_MS);
      const { token, tokenHash } = newTaskToken();
      const task = await db.manualTask.create({
        data: {
          id: newId('mt'),
          organizationId: dr.organizationId,
          workspaceId: dr.workspaceId,
          deletionRequestId: dr.id,
          integrationRequestId,
          integrationName: ir.integrationName,
          owners: config.owners,
          tokenHash,
          tokenExpiresAt: taskLinkExpiry(dueAt, dr.dueAt),
          dueAt,
          reminderEveryDays: config.reminderEveryDays,
          createdAt: openedAt,
        },
        select: { id: true },
      });
      try {
        const mailed = await mailTask(
          serviceConfig,
          {
            owners: config.owners,
            integrationName: ir.integrationName,
            dueAt,
            link: taskLink(serviceConfig.PUBLIC_URL, token),
            organizationName: dr.organization.name,
          },
          'new',
        );
        return { taskId: task.id, mailed: mailed ? config.owners.length : 0 };
      } catch (error) {
        // The owners never got this link: the next attempt opens a task whose link they do get.
        await db.manualTask.delete({ where: { id: task.id } });
        throw new TransientError(`Could not mail the task to its owners: ${(error as Error).message}`);
      }
    },

    async answerOf(taskId) {
      const task = await db.manualTask.findFirst({
        where: { id: taskId, integrationRequestId },
        select: {
          answer: true,
          answerNote: true,
          answeredAt: true,
          answeredVia: true,
          answeredBy: true,
          answeredFrom: true,
          evidence: { select: { fileName: true, contentType: true, sizeBytes: true, sha256: true } },
        },
      });
      if (!task?.answeredAt || !task.answer) return null;
      const answer = ANSWERS.find((a) => a === task.answer);
      if (!answer) return null;
      return {
        answer,
        note: task.answerNote,
        answeredAt: task.answeredAt,
        via: task.answeredVia ?? 'link',
        by: task.answeredBy,
        from: task.answeredFrom,
        file: task.evidence,
      } satisfies ManualAnswer;
    },

    async revoke(taskId) {
      await db.manualTask.updateMany({
        where: { id: taskId, integrationRequestId, ...openTaskWhere },
        data: { tokenRevokedAt: now() },
      });
    },
  };
}
