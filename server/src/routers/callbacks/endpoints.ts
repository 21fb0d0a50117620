import { z } from 'zod';
import {
  type CallbackEndpointWithSecret,
  callbackEndpointSchema,
  callbackEndpointWithSecretSchema,
  createCallbackEndpointInputSchema,
  rotateCallbackSecretInputSchema,
  updateCallbackEndpointInputSchema,
} from '@shared/schemas/callbacks';
import {
  createCallbackEndpoint,
  deleteCallbackEndpoint,
  listCallbackEndpoints,
  rotateCallbackSecret,
  updateCallbackEndpoint,
} from '../../callbacks/endpoints';
import type { KeepAnswer } from '../../services/idempotency/idempotency-keys';
import { adminProcedure } from '../../trpc/procedures';
import {
  callbackMeta,
  ENDPOINT_NOT_FOUND,
  endpointPath,
  idempotently,
  MALFORMED_ENDPOINT_ID,
  onEndpoint,
} from './shared-meta';

const INVALID_BODY =
  'Invalid body: a URL that is not http(s), no events or an unknown one, a description over 200 characters.';
const REFUSED_URL =
  'Also a URL the outbound policy refuses (a private or loopback address not in OUTBOUND_ALLOWLIST), or plain http to a public host.';

/** GET /callback-endpoints */
export const list = adminProcedure
  .meta(
    callbackMeta({
      method: 'GET',
      path: '/callback-endpoints',
      operationId: 'listCallbackEndpoints',
      summary: 'List callback endpoints',
      description:
        "The organization's callback endpoints, oldest first (a token limited to workspaces sees its workspaces' endpoints). Never their signing secrets.",
      successDescription: 'Every endpoint the token may manage.',
    }),
  )
  .input(z.object({}).optional())
  .output(z.array(callbackEndpointSchema))
  .query(({ ctx }) => listCallbackEndpoints(ctx.prisma, ctx.actor));

/** POST /callback-endpoints: the signing secret is in this answer only. */
export const create = adminProcedure
  .meta(
    callbackMeta({
      method: 'POST',
      path: '/callback-endpoints',
      operationId: 'createCallbackEndpoint',
      summary: 'Register a callback endpoint',
      description:
        'Registers an endpoint for the events it lists, for one workspace or (without `workspaceId`) the whole organization. Deliveries are signed the Standard Webhooks way with the secret in this answer, which is shown only once.',
      successStatus: 201,
      successDescription: 'The endpoint, with its signing secret (shown this once).',
      badRequestExample: { path: ['events'], message: 'Choose at least one event' },
      errors: {
        400: `${INVALID_BODY} ${REFUSED_URL}`,
        404: 'No workspace with this `workspaceId` in the organization.',
      },
    }),
  )
  .input(createCallbackEndpointInputSchema)
  .output(callbackEndpointWithSecretSchema)
  .mutation(async ({ ctx, input }) => {
    const endpoint = await idempotently(
      ctx,
      'createCallbackEndpoint',
      input,
      (keep: KeepAnswer<CallbackEndpointWithSecret>) => createCallbackEndpoint(ctx, ctx.actor, input, keep),
      true,
    );
    ctx.response.status = 201;
    return endpoint;
  });

/** PATCH /callback-endpoints/{endpointId} */
export const update = adminProcedure
  .meta(
    callbackMeta({
      method: 'PATCH',
      path: endpointPath,
      operationId: 'updateCallbackEndpoint',
      summary: 'Change a callback endpoint',
      description:
        'Changes the URL, description or events of an endpoint, or turns it off and on (`enabled`); fields left out stay as they are.',
      successDescription: 'The endpoint as it is now.',
      badRequestExample: { path: ['events'], message: 'Choose at least one event' },
      errors: {
        400: `${INVALID_BODY} ${REFUSED_URL} Also a malformed endpoint id (over 64 characters).`,
        404: ENDPOINT_NOT_FOUND,
      },
    }),
  )
  .input(updateCallbackEndpointInputSchema)
  .output(callbackEndpointSchema)
  .mutation(({ ctx, input }) => updateCallbackEndpoint(ctx, ctx.actor, input));

/** DELETE /callback-endpoints/{endpointId} */
export const remove = adminProcedure
  .meta(
    callbackMeta({
      method: 'DELETE',
      path: endpointPath,
      operationId: 'deleteCallbackEndpoint',
      summary: 'Delete a callback endpoint',
      description: 'Deletes the endpoint and its delivery log; deliveries still on their way are not sent.',
      successDescription: 'The id of the deleted endpoint.',
      badRequestExample: MALFORMED_ENDPOINT_ID,
      errors: { 400: 'A malformed endpoint id (over 64 characters).', 404: ENDPOINT_NOT_FOUND },
    }),
  )
  .input(onEndpoint)
  .output(z.object({ id: z.string() }))
  .mutation(({ ctx, input }) => deleteCallbackEndpoint(ctx.prisma, ctx.actor, input.endpointId));

/** POST /callback-endpoints/{endpointId}/rotate-secret: the new secret is in this answer only. */
export const rotateSecret = adminProcedure
  .meta(
    callbackMeta({
      method: 'POST',
      path: `${endpointPath}/rotate-secret`,
      operationId: 'rotateCallbackSecret',
      summary: "Rotate a callback endpoint's signing secret",
      description:
        'A new signing secret, in this answer only. For `overlapHours` (0 to 168, 24 by default) the previous secret keeps signing too: each delivery then carries both signatures, so the receiver can switch without a gap.',
      successDescription: 'The endpoint, with its new signing secret (shown this once).',
      badRequestExample: { path: ['overlapHours'], message: 'Too big: expected number to be <=168' },
      errors: {
        400: 'Invalid body: overlapHours not a whole number from 0 to 168; or a malformed endpoint id (over 64 characters).',
        404: ENDPOINT_NOT_FOUND,
      },
    }),
  )
  .input(rotateCallbackSecretInputSchema)
  .output(callbackEndpointWithSecretSchema)
  .mutation(({ ctx, input }) =>
    idempotently(
      ctx,
      'rotateCallbackSecret',
      input,
      (keep: KeepAnswer<CallbackEndpointWithSecret>) => rotateCallbackSecret(ctx, ctx.actor, input, keep),
      true,
    ),
  );
