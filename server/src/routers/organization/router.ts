import { z } from 'zod';
import { nameSchema } from '@shared/schemas/auth';
import { router } from '../../trpc/init';
import { memberProcedure, ownerProcedure } from '../../trpc/procedures';
import { getOrganization, renameOrganization } from '../../services/organizations/organizations';

export const organizationRouter = router({
  get: memberProcedure.query(({ ctx }) => getOrganization(ctx.prisma, ctx.actor)),
  rename: ownerProcedure.input(z.object({ name: nameSchema })).mutation(({ ctx, input }) => renameOrganization(ctx.prisma, ctx.actor, input.name)),
});
