import { z } from 'zod';
import {
  createCallbackEndpointInputSchema,
  rotateCallbackSecretInputSchema,
  updateCallbackEndpointInputSchema,
} from '@shared/schemas/callbacks';
import { listCallbackDeliveries, resendCallbackDelivery, sendTestCallback } from '../../callbacks/deliveries';
import {
  createCallbackEndpoint,
  deleteCallbackEndpoint,
  listCallbackEndpoints,
  rotateCallbackSecret,
  updateCallbackEndpoint,
} from '../../callbacks/endpoints';
import { router } from '../../trpc/init';
import { adminProcedure } from '../../trpc/procedures';

/** Admins (or tokens with `callbacks:manage`) manage the organization's callback endpoints. */
const manage = adminProcedure.meta({ scope: 'callbacks:manage' });
const endpointId = z.object({ endpointId: z.string().max(64) });

export const callbacksRouter = router({
  list: manage.query(({ ctx }) => listCallbackEndpoints(ctx.prisma, ctx.actor)),
  /** The signing secret is in this answer only. */
  create: manage
    .input(createCallbackEndpointInputSchema)
    .mutation(({ ctx, input }) => createCallbackEndpoint(ctx, ctx.actor, input)),
  update: manage
    .input(updateCallbackEndpointInputSchema)
    .mutation(({ ctx, input }) => updateCallbackEndpoint(ctx, ctx.actor, input)),
  delete: manage
    .input(endpointId)
    .mutation(({ ctx, input }) => deleteCallbackEndpoint(ctx.prisma, ctx.actor, input.endpointId)),
  /** The new secret is in this answer only; the old one keeps signing during the overlap. */
  rotateSecret: manage
    .input(rotateCallbackSecretInputSchema)
    .mutation(({ ctx, input }) => rotateCallbackSecret(ctx, ctx.actor, input)),
  sendTest: manage
    .input(endpointId)
    .mutation(({ ctx, input }) => sendTestCallback(ctx.prisma, ctx.actor, input.endpointId)),
  deliveries: manage
    // `cursor`: the last delivery of the page before (tRPC's infinite-query convention).
    .input(endpointId.extend({ cursor: z.string().max(64).nullish() }))
    .query(({ ctx, input }) => listCallbackDeliveries(ctx.prisma, ctx.actor, input)),
  resend: manage
    .input(z.object({ deliveryId: z.string().max(64) }))
    .mutation(({ ctx, input }) => resendCallbackDelivery(ctx.prisma, ctx.actor, input.deliveryId)),
});
