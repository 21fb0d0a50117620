import { requestDetailInputSchema } from '@shared/schemas/dashboard';
import { tasksOfRequest } from '../../services/manual-tasks/list-tasks';
import { router } from '../../trpc/init';
import { memberProcedure } from '../../trpc/procedures';
import { answer, list } from './rest';
import { answerOnTask, openTask, revealOnTask } from './task-page';

/** The manual tasks of one request (open and answered), for its page in the dashboard. */
const ofRequest = memberProcedure
  .input(requestDetailInputSchema)
  .query(({ ctx, input }) => tasksOfRequest(ctx.prisma, ctx.actor, input.deletionRequestId));

export const manualTasksRouter = router({ list, answer, ofRequest, openTask, revealOnTask, answerOnTask });
