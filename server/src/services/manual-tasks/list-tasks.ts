import { maskIdentifier } from '@shared/mask-identifier';
import type { ManualTask } from '@shared/schemas/manual-tasks';
import type { Db } from '../../db/client';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../lib/keyset-cursor';
import { notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../auth/actor';
import { openTaskWhere } from './task-port';

/** Tasks still waiting for an answer whose integration request waits for them (not canceled, not retried). */
const waitingWhere = {
  ...openTaskWhere,
  integrationRequest: { status: { in: ['PENDING' as const, 'PROCESSING' as const] } },
};

/** An open task is late for the legal deadline when it is due after it, or is still open past it. */
export const lateForDeadline = (task: { dueAt: Date }, requestDueAt: Date | null, now: Date) =>
  requestDueAt !== null && (task.dueAt > requestDueAt || now > requestDueAt);

/** The open tasks of the actor's organization, or of one workspace, newest first (keyset pages). */
export async function listOpenTasks(
  db: Db,
  actor: Actor,
  scope: { workspaceId?: string },
  page: { limit: number; cursor?: string },
  now = new Date(),
): Promise<{ items: ManualTask[]; nextCursor: string | null }> {
  const after = page.cursor ? decodeKeysetCursor(page.cursor) : null;
  const rows = await db.manualTask.findMany({
    where: {
      organizationId: actor.organizationId,
      ...waitingWhere,
      ...(scope.workspaceId
        ? { workspaceId: scope.workspaceId }
        : actor.workspaceIds
          ? { workspaceId: { in: [...actor.workspaceIds] } }
          : {}),
      ...(after
        ? {
            OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
          }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: page.limit + 1,
    select: {
      id: true,
      organizationId: true,
      workspaceId: true,
      deletionRequestId: true,
      integrationRequestId: true,
      integrationName: true,
      owners: true,
      createdAt: true,
      dueAt: true,
      deletionRequest: { select: { dueAt: true, identifier: true, hashed: true } },
    },
  });
  const items = rows.slice(0, page.limit);
  const last = items.at(-1);
  return {
    items: items.map((t) => ({
      id: t.id,
      organizationId: t.organizationId,
      workspaceId: t.workspaceId,
      deletionRequestId: t.deletionRequestId,
      integrationRequestId: t.integrationRequestId,
      integrationName: t.integrationName,
      owners: t.owners as string[],
      maskedIdentifier:
        t.deletionRequest.identifier === null
          ? null
          : t.deletionRequest.hashed
            ? t.deletionRequest.identifier
            : maskIdentifier(t.deletionRequest.identifier),
      createdAt: t.createdAt.toISOString(),
      dueAt: t.dueAt.toISOString(),
      requestDueAt: t.deletionRequest.dueAt?.toISOString() ?? null,
      lateForDeadline: lateForDeadline(t, t.deletionRequest.dueAt, now),
    })),
    nextCursor: rows.length > page.limit && last ? encodeKeysetCursor(last.createdAt, last.id) : null,
  };
}

/** Every task of one request (open and answered), for its page in the dashboard. */
export async function tasksOfRequest(db: Db, actor: Actor, deletionRequestId: string) {
  const request = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { workspaceId: true },
  });
  if (!request) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, request.workspaceId);
  const tasks = await db.manualTask.findMany({
    where: { deletionRequestId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      integrationRequestId: true,
      integrationName: true,
      owners: true,
      createdAt: true,
      dueAt: true,
      tokenRevokedAt: true,
      answer: true,
      answerNote: true,
      answeredAt: true,
      answeredVia: true,
      answeredBy: true,
      answeredFrom: true,
      evidence: { select: { fileName: true, contentType: true, sizeBytes: true, sha256: true } },
      integrationRequest: { select: { status: true, trackingId: true } },
    },
  });
  return tasks.map(({ integrationRequest: ir, tokenRevokedAt, ...task }) => ({
    ...task,
    owners: task.owners as string[],
    createdAt: task.createdAt.toISOString(),
    dueAt: task.dueAt.toISOString(),
    answeredAt: task.answeredAt?.toISOString() ?? null,
    open:
      !task.answeredAt &&
      !tokenRevokedAt &&
      (ir.status === 'PENDING' || ir.status === 'PROCESSING') &&
      ir.trackingId === task.id,
  }));
}

/**
 * Open manual tasks that will be late for their request's legal deadline (due after it, or
 * still open past it): the overview's "Needs attention" and the daily digest list them.
 */
export async function tasksLateForDeadline(db: Db, organizationId: string, now = new Date(), take = 20) {
  const rows = await db.manualTask.findMany({
    where: { organizationId, ...waitingWhere, deletionRequest: { dueAt: { not: null } } },
    orderBy: [{ dueAt: 'asc' }, { id: 'asc' }],
    take: 500,
    select: {
      id: true,
      deletionRequestId: true,
      integrationName: true,
      dueAt: true,
      deletionRequest: { select: { dueAt: true } },
    },
  });
  return rows
    .filter((t) => lateForDeadline(t, t.deletionRequest.dueAt, now))
    .slice(0, take)
    .map((t) => ({
      taskId: t.id,
      deletionRequestId: t.deletionRequestId,
      integrationName: t.integrationName,
      dueAt: t.dueAt.toISOString(),
      requestDueAt: t.deletionRequest.dueAt!.toISOString(),
    }));
}
