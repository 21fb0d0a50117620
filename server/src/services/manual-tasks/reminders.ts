import type { Config } from '../../config';
import type { Db } from '../../db/client';
import type { Logger } from '../../lib/logger';
import { mailTask } from './task-mail';

const DAY_MS = 86_400_000;

/** Open tasks whose integration request still waits for them. */
const waiting = {
  answeredAt: null,
  tokenRevokedAt: null,
  integrationRequest: { status: { in: ['PENDING' as const, 'PROCESSING' as const] } },
};

/**
 * One pass over the open manual tasks: a reminder to the owners every `reminderEveryDays`
 * (counted from the task's opening or its last reminder), and once a task is past its days to
 * complete an escalation (an audit entry the notifier turns into the admins' email and Slack
 * notice, when the integration escalates). `now` is the clock, so tests can move it.
 */
export async function runManualTaskReminders(
  deps: { prisma: Db; config: Config; log: Logger },
  now = new Date(),
): Promise<{ reminded: number; escalated: number }> {
  let reminded = 0;
  let escalated = 0;
  const open = await deps.prisma.manualTask.findMany({
    where: { ...waiting, OR: [{ reminderEveryDays: { gt: 0 } }, { escalatedAt: null, dueAt: { lte: now } }] },
    orderBy: { createdAt: 'asc' },
    take: 1_000,
    select: {
      id: true,
      organizationId: true,
      deletionRequestId: true,
      integrationRequestId: true,
      integrationName: true,
      owners: true,
      dueAt: true,
      createdAt: true,
      reminderEveryDays: true,
      lastRemindedAt: true,
      escalatedAt: true,
      organization: { select: { name: true } },
      integrationRequest: { select: { configSnapshot: { select: { config: true } } } },
    },
  });
  for (const task of open) {
    const last = task.lastRemindedAt ?? task.createdAt;
    if (task.reminderEveryDays > 0 && now.getTime() - last.getTime() >= task.reminderEveryDays * DAY_MS) {
      try {
        const sent = await mailTask(
          deps.config,
          {
            owners: task.owners as string[],
            integrationName: task.integrationName,
            dueAt: task.dueAt,
            link: `the link in the first email about this task (opened ${task.createdAt.toISOString().slice(0, 10)}); a member of ${task.organization.name} can also answer in the dashboard`,
            organizationName: task.organization.name,
          },
          'reminder',
        );
        await deps.prisma.manualTask.update({ where: { id: task.id }, data: { lastRemindedAt: now } });
        await deps.prisma.auditLog.create({
          data: {
            organizationId: task.organizationId,
            deletionRequestId: task.deletionRequestId,
            integrationRequestId: task.integrationRequestId,
            actorType: 'system',
            action: 'manual_task.reminded',
            summary: sent
              ? `Reminder mailed to the owners of ${task.integrationName}`
              : 'Reminder due (email is not configured)',
          },
        });
        if (sent) reminded++;
      } catch (error) {
        deps.log.warn({ taskId: task.id, err: (error as Error).message }, 'manual task reminder failed');
      }
    }
    const escalate = (task.integrationRequest.configSnapshot.config as { escalateToAdmins?: unknown } | null)
      ?.escalateToAdmins;
    if (!task.escalatedAt && task.dueAt <= now) {
      await deps.prisma.manualTask.update({ where: { id: task.id }, data: { escalatedAt: now } });
      await deps.prisma.auditLog.create({
        data: {
          organizationId: task.organizationId,
          deletionRequestId: task.deletionRequestId,
          integrationRequestId: task.integrationRequestId,
          actorType: 'system',
          action: escalate === false ? 'manual_task.overdue' : 'manual_task.escalated',
          summary: `The manual task for ${task.integrationName} is past its days to complete (due ${task.dueAt.toISOString().slice(0, 10)})${escalate === false ? '' : ': the admins are told'}`,
        },
      });
      if (escalate !== false) escalated++;
    }
  }
  return { reminded, escalated };
}
