import { z } from 'zod';
import {
  answerByIdSchema,
  manualTaskAnswerResultSchema,
  manualTaskListQuerySchema,
  manualTaskSchema,
} from '@shared/schemas/manual-tasks';
import { answerManualTask } from '../../pipeline/commands/answer-manual-task';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { listOpenTasks } from '../../services/manual-tasks/list-tasks';
import { findWorkspaceByApiKey } from '../../services/workspaces/workspaces';
import { AppError } from '../../lib/errors';
import type { Context } from '../../trpc/context';
import { memberProcedure } from '../../trpc/procedures';
import { restMeta } from '../rest-meta';
import { listRequestHeaders, listResponseHeaders, setNextLink } from '../deletion-requests/shared-meta';

const TAG = 'Manual tasks';

/** The workspace an X-Workspace-Api-Key header names (it must be valid), or undefined without one. */
async function keyedWorkspace(ctx: Context & { actor: Actor }): Promise<string | undefined> {
  const key = ctx.headers['x-workspace-api-key'];
  if (key === undefined) return undefined;
  const workspace = await findWorkspaceByApiKey(ctx.prisma, ctx.actor, key);
  assertWorkspaceAllowed(ctx.actor, workspace.id);
  return workspace.id;
}

/** Open manual tasks, for a partner's ticketing system: one ticket per task, closed by answering it. */
export const list = memberProcedure
  .meta(
    restMeta({
      method: 'GET',
      path: '/manual-tasks',
      operationId: 'listManualTasks',
      tag: TAG,
      scope: 'requests:read',
      summary: 'List open manual tasks',
      description:
        "The manual tasks still waiting for an answer, of the workspace the X-Workspace-Api-Key header names (or of every workspace the token may use), newest first. Identifiers are masked: a ticket names the request, and the task's owners see the identifiers on the task page. Paginated with `limit` and `cursor`; the next page is announced in the `Link` header.",
      successDescription: 'One page of open manual tasks (an empty array when there are none).',
      requestHeaders: listRequestHeaders,
      responseHeaders: listResponseHeaders,
      errors: {
        400: 'Invalid query parameter (limit, cursor).',
        404: 'The X-Workspace-Api-Key header names no workspace of this organization.',
      },
    }),
  )
  .input(manualTaskListQuerySchema)
  .output(z.array(manualTaskSchema))
  .query(async ({ ctx, input }) => {
    const workspaceId = await keyedWorkspace(ctx);
    const { items, nextCursor } = await listOpenTasks(ctx.prisma, ctx.actor, { workspaceId }, input);
    setNextLink(ctx, '/manual-tasks', { limit: input.limit }, nextCursor);
    return items;
  });

/** A member (dashboard) or a partner's system (API) answers an open task by its id. */
export const answer = memberProcedure
  .meta(
    restMeta({
      method: 'POST',
      path: '/manual-tasks/{id}/answer',
      operationId: 'answerManualTask',
      tag: TAG,
      scope: 'requests:write',
      summary: 'Answer a manual task',
      description:
        'Records that a person did the deletion (`done`, with an optional evidence file), found nothing (`not_found`) or cannot do it (`cannot`, with the reason). The integration request then finishes SUCCESS (done, not found) or FAILED (cannot); the audit trail records who answered, when and from which address, and the certificate says "confirmed by a person". The task\'s link stops working.',
      successDescription: 'The answer as recorded.',
      requestHeaders: listRequestHeaders,
      errors: {
        400: 'Invalid answer (a `cannot` without a note, an evidence file with another answer, a file that is not base64).',
        404: 'No open manual task with this id in this organization (answered, withdrawn, or another workspace than the X-Workspace-Api-Key names).',
        413: 'The evidence file is larger than 10 MB (or the body larger than the service accepts).',
        415: 'The evidence file is not a PDF, PNG, JPEG, CSV or TXT file (by its content), or the body is not JSON.',
      },
      badRequestExample: { path: ['note'], message: 'Say why it cannot be done' },
    }),
  )
  .input(answerByIdSchema)
  .output(manualTaskAnswerResultSchema)
  .mutation(async ({ ctx, input }) => {
    const workspaceId = await keyedWorkspace(ctx);
    if (workspaceId) {
      const task = await ctx.prisma.manualTask.findFirst({
        where: { id: input.id, organizationId: ctx.actor.organizationId, workspaceId },
        select: { id: true },
      });
      if (!task) throw new AppError('NOT_FOUND', 'No open manual task with this id in that workspace');
    }
    const { id, ...answerInput } = input;
    return answerManualTask(
      ctx,
      { taskId: id, actor: ctx.actor, via: ctx.channel === 'rest' ? 'api' : 'member' },
      answerInput,
      ctx.ip,
    );
  });
