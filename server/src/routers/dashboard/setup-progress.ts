import { memberProcedure } from '../../trpc/procedures';
import { getSetupProgress } from '../../services/dashboard/get-setup-progress';

/** The first steps the organization has taken (the Overview's setup checklist). */
export const setupProgress = memberProcedure.query(({ ctx }) => getSetupProgress(ctx.prisma, ctx.actor));
