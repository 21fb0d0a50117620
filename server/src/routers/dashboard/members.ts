import { memberProcedure } from '../../trpc/procedures';
import { listMembers } from '../../services/dashboard/list-members';

/** Members of the active organization (names for filters and timelines). */
export const members = memberProcedure.query(({ ctx }) => listMembers(ctx.prisma, ctx.actor));
