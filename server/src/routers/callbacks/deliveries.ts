import { z } from 'zod';
import { callbackDeliveryPageSchema } from '@shared/schemas/callbacks';
import { listCallbackDeliveries, resendCallbackDelivery, sendTestCallback } from '../../callbacks/deliveries';
import { adminProcedure } from '../../trpc/procedures';
import {
  callbackMeta,
  ENDPOINT_NOT_FOUND,
  endpointPath,
  idempotently,
  MALFORMED_ENDPOINT_ID,
  onEndpoint,
} from './shared-meta';

/** GET /callback-endpoints/{endpointId}/deliveries: the delivery log, newest first, 50 at a time. */
export const deliveries = adminProcedure
  .meta(
    callbackMeta({
      method: 'GET',
      path: `${endpointPath}/deliveries`,
      operationId: 'listCallbackDeliveries',
      summary: "List a callback endpoint's deliveries",
      description:
        "The endpoint's deliveries, newest first, 50 at a time: each with its status, attempts, the receiver's last answer and the exact body signed. Pass a page's `nextCursor` as `cursor` for the next one.",
      successDescription: 'One page of deliveries.',
      badRequestExample: MALFORMED_ENDPOINT_ID,
      errors: {
        400: 'A malformed endpoint id or cursor (over 64 characters).',
        404: `${ENDPOINT_NOT_FOUND} Also an unknown \`cursor\`.`,
      },
    }),
  )
  // `cursor`: the last delivery of the page before (tRPC's infinite-query convention).
  .input(onEndpoint.extend({ cursor: z.string().max(64).nullish() }))
  .output(callbackDeliveryPageSchema)
  .query(({ ctx, input }) => listCallbackDeliveries(ctx.prisma, ctx.actor, input));

/** POST /callback-endpoints/{endpointId}/test */
export const sendTest = adminProcedure
  .meta(
    callbackMeta({
      method: 'POST',
      path: `${endpointPath}/test`,
      operationId: 'sendTestCallback',
      summary: 'Send a test event to a callback endpoint',
      description:
        'Queues a `callback.test` event to this endpoint alone (also when it is disabled or does not subscribe to it); it says nothing about any request.',
      successDescription: 'The id of the delivery (its `webhook-id`).',
      badRequestExample: MALFORMED_ENDPOINT_ID,
      errors: { 400: 'A malformed endpoint id (over 64 characters).', 404: ENDPOINT_NOT_FOUND },
    }),
  )
  .input(onEndpoint)
  .output(z.object({ id: z.string() }))
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'sendTestCallback', input, () => sendTestCallback(ctx.prisma, ctx.actor, input.endpointId)),
  );

/** POST /callback-deliveries/{deliveryId}/resend */
export const resend = adminProcedure
  .meta(
    callbackMeta({
      method: 'POST',
      path: '/callback-deliveries/{deliveryId}/resend',
      operationId: 'resendCallbackDelivery',
      summary: 'Send a callback delivery again',
      description:
        'Sends a delivery again with the same `webhook-id` and body (a receiver that processed it already recognises it); its attempts start again.',
      successDescription: 'The delivery, queued.',
      badRequestExample: { path: ['deliveryId'], message: 'Too big: expected string to have <=64 characters' },
      errors: {
        400: 'A malformed delivery id (over 64 characters).',
        404: "No delivery with this id in the token's organization, or its endpoint is outside the token's workspaces.",
        409: 'The delivery is being sent right now; try again in a moment. Also answered while an earlier call with the same Idempotency-Key is still running.',
      },
    }),
  )
  .input(z.object({ deliveryId: z.string().max(64) }))
  .output(z.object({ id: z.string(), status: z.literal('PENDING') }))
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'resendCallbackDelivery', input, () =>
      resendCallbackDelivery(ctx.prisma, ctx.actor, input.deliveryId),
    ),
  );
