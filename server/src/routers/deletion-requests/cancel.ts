import { cancelBody, deletionRequestActionResultSchema, requireNoteForOther } from '@shared/schemas/deletion-request';
import { memberProcedure } from '../../trpc/procedures';
import { cancelDeletionRequest, cancelIntegrationRequest } from '../../pipeline/commands/cancel';
import {
  actionMeta,
  actionResult,
  count,
  idempotently,
  INTEGRATION_REQUEST_NOT_FOUND,
  integrationRequestPath,
  onIntegrationRequest,
  onRequest,
  REQUEST_NOT_FOUND,
  requestPath,
} from './action-support';

/** Cancel a deletion request, or one of its integration requests. */
export const cancel = memberProcedure
  .meta(
    actionMeta({
      path: `${requestPath}/cancel`,
      operationId: 'cancelDeletionRequest',
      summary: 'Cancel a deletion request',
      description:
        'Cancels every integration request that has not finished: one not sent yet is canceled here; one a destination has accepted is canceled there when the destination supports it; the others are listed in `refused` with the reason. Finished ones are never touched. ' +
        'A canceled request reads "Closed — not fulfilled" with the `reason` given (optional here; `note` is required with `other`), which the request, its certificate, the CSV export and the callbacks carry as `cancelReason` and `cancelNote`.',
      successDescription: 'What was canceled, what could not be (with the reason), and the request as it is now.',
      conflict: 'The request has finished: nothing to cancel.',
      notFound: REQUEST_NOT_FOUND,
    }),
  )
  .input(onRequest.extend(cancelBody).superRefine(requireNoteForOther))
  .output(deletionRequestActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'cancelDeletionRequest', input, async () => {
      const { canceled, refused } = await cancelDeletionRequest(ctx, ctx.actor, input.deletionRequestId, {
        reason: input.reason,
        note: input.note,
      });
      const message = `${count(canceled.length)} canceled${refused.length ? `, ${refused.length} could not be` : ''}`;
      return actionResult(
        ctx,
        input.deletionRequestId,
        message,
        canceled,
        refused.map((r) => ({ integrationRequestId: r.id, reason: r.reason })),
      );
    }),
  );

export const cancelIntegration = memberProcedure
  .meta(
    actionMeta({
      path: `${integrationRequestPath}/cancel`,
      operationId: 'cancelIntegrationRequest',
      summary: 'Cancel one integration request',
      description:
        'Cancels the deletion at one integration: here when it was not sent yet, at the destination when the destination supports cancel; otherwise a 409 with the reason.',
      successDescription: 'The canceled integration request, and the deletion request as it is now.',
      conflict:
        'The integration request has finished, is being processed right now, or its destination cannot cancel (the message says which).',
      notFound: INTEGRATION_REQUEST_NOT_FOUND,
    }),
  )
  .input(onIntegrationRequest)
  .output(deletionRequestActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'cancelIntegrationRequest', input, async () => {
      const { message } = await cancelIntegrationRequest(
        ctx,
        ctx.actor,
        input.integrationRequestId,
        input.deletionRequestId,
      );
      return actionResult(ctx, input.deletionRequestId, message, [input.integrationRequestId]);
    }),
  );
