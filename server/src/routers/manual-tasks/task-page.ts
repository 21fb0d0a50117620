import { z } from 'zod';
import {
  answerByLinkSchema,
  manualTaskAnswerResultSchema,
  taskPageSchema,
  taskTokenInputSchema,
} from '@shared/schemas/manual-tasks';
import { answerManualTask } from '../../pipeline/commands/answer-manual-task';
import { openTaskPage, revealTaskIdentifier } from '../../services/manual-tasks/task-page';
import { publicProcedure } from '../../trpc/procedures';

/*
 * The task page an owner opens from the emailed link, without an account: the token is the
 * only credential. Every call is a POST (the token never lands in a URL or a log line), and
 * every link that does not open answers the same 404, naming nothing of the request.
 */

export const openTask = publicProcedure
  .input(taskTokenInputSchema)
  .output(taskPageSchema)
  .mutation(({ ctx, input }) => openTaskPage(ctx.prisma, input.token));

export const revealOnTask = publicProcedure
  .input(taskTokenInputSchema.extend({ identifierId: z.string().min(1).max(64) }))
  .output(z.object({ value: z.string() }))
  .mutation(({ ctx, input }) => revealTaskIdentifier(ctx.prisma, input.token, input.identifierId, ctx.ip));

export const answerOnTask = publicProcedure
  .input(answerByLinkSchema)
  .output(manualTaskAnswerResultSchema.pick({ answer: true, answeredAt: true }))
  .mutation(async ({ ctx, input }) => {
    const { token, ...answer } = input;
    const result = await answerManualTask(ctx, { token }, answer, ctx.ip);
    // The owner learns nothing more of the request than the page showed.
    return { answer: result.answer, answeredAt: result.answeredAt };
  });
