import { z } from 'zod';
import { nameSchema } from '@shared/schemas/auth';
import { router } from '../../trpc/init';
import { memberProcedure, ownerProcedure } from '../../trpc/procedures';
import {
  getOrganization,
  renameOrganization,
  updateRetentionPolicy,
  updateReverification,
} from '../../services/organizations/organizations';
import { applyRetention, previewRetention } from '../../pipeline/commands/apply-retention';
import { retentionPolicySchema, reverificationSchema } from '@shared/schemas/organization';

export const organizationRouter = router({
  get: memberProcedure.query(({ ctx }) => getOrganization(ctx.prisma, ctx.actor)),
  /** Hash or delete identifiers N days after completion (0 = at once); applied daily at midnight UTC. */
  updateRetention: ownerProcedure
    .input(retentionPolicySchema)
    .mutation(({ ctx, input }) => updateRetentionPolicy(ctx.prisma, ctx.actor, input)),
  /** How many finished requests "apply now" would hash or delete at this moment (for its confirmation). */
  retentionPreview: ownerProcedure.query(({ ctx }) => previewRetention(ctx.prisma, ctx.actor.organizationId)),
  /** Applies the retention policy now instead of at the next midnight UTC. */
  applyRetentionNow: ownerProcedure.mutation(({ ctx }) =>
    applyRetention(ctx.prisma, new Date(), ctx.actor.organizationId),
  ),
  /** Re-run store verifications N days after SUCCESS (null = off); see server/src/jobs/reverify.ts. */
  updateReverification: ownerProcedure
    .input(reverificationSchema)
    .mutation(({ ctx, input }) => updateReverification(ctx.prisma, ctx.actor, input)),
  rename: ownerProcedure
    .input(z.object({ name: nameSchema }))
    .mutation(({ ctx, input }) => renameOrganization(ctx.prisma, ctx.actor, input.name)),
});
