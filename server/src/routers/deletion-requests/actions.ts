import { z } from 'zod';
import { deletionRequestSchema } from '@shared/schemas/deletion-request';
import { memberProcedure } from '../../trpc/procedures';
import { cancelDeletionRequest, cancelIntegrationRequest } from '../../pipeline/commands/cancel';
import { checkIntegrationRequestNow } from '../../pipeline/commands/check-now';
import { retryDeletionRequest, retryIntegrationRequest } from '../../pipeline/commands/retry';
import { getAuditTrail, getDeletionRequest } from '../../services/deletion-requests/get-deletion-request';

const deletionRequestId = z.object({ deletionRequestId: z.string().max(64) });
const integrationRequestId = z.object({ integrationRequestId: z.string().max(64) });

/** A deletion request with its integration requests. */
export const get = memberProcedure
  .meta({ scope: 'requests:read' })
  .input(deletionRequestId.extend({ fetchHashed: z.boolean().optional() }))
  .output(deletionRequestSchema)
  .query(({ ctx, input }) => getDeletionRequest(ctx.prisma, ctx.actor, input.deletionRequestId, { fetchHashed: input.fetchHashed ?? true }));

export const auditTrail = memberProcedure.meta({ scope: 'requests:read' }).input(deletionRequestId).query(({ ctx, input }) => getAuditTrail(ctx.prisma, ctx.actor, input.deletionRequestId));

export const retry = memberProcedure.meta({ scope: 'requests:write' }).input(deletionRequestId).mutation(({ ctx, input }) => retryDeletionRequest(ctx.prisma, ctx.actor, input.deletionRequestId));
export const retryIntegration = memberProcedure.meta({ scope: 'requests:write' })
  .input(integrationRequestId)
  .mutation(({ ctx, input }) => retryIntegrationRequest(ctx.prisma, ctx.actor, input.integrationRequestId));
export const checkStatusNow = memberProcedure.meta({ scope: 'requests:write' })
  .input(integrationRequestId)
  .mutation(({ ctx, input }) => checkIntegrationRequestNow(ctx.prisma, ctx.actor, input.integrationRequestId));
export const cancel = memberProcedure.meta({ scope: 'requests:write' }).input(deletionRequestId).mutation(({ ctx, input }) => cancelDeletionRequest(ctx, ctx.actor, input.deletionRequestId));
export const cancelIntegration = memberProcedure.meta({ scope: 'requests:write' })
  .input(integrationRequestId)
  .mutation(({ ctx, input }) => cancelIntegrationRequest(ctx, ctx.actor, input.integrationRequestId));
