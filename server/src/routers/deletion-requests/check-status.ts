import { deletionRequestActionResultSchema } from '@shared/schemas/deletion-request';
import { memberProcedure } from '../../trpc/procedures';
import { checkDeletionRequestNow, checkIntegrationRequestNow } from '../../pipeline/commands/check-now';
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

/** Bring a deletion request's status checks forward, or one integration request's. */
export const checkStatus = memberProcedure
  .meta(
    actionMeta({
      path: `${requestPath}/check-status`,
      operationId: 'checkDeletionRequestStatus',
      summary: "Check a deletion request's status now",
      description:
        "Every integration request that has not finished is looked at now instead of at its next scheduled time: an accepted asynchronous job is polled, a waiting attempt is made. The outcome arrives in the request's status (and its callbacks) moments later.",
      successDescription: 'The integration requests brought forward, and the request as it is now.',
      conflict: 'The request has finished: there is no status to check.',
      notFound: REQUEST_NOT_FOUND,
    }),
  )
  .input(onRequest)
  .output(deletionRequestActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'checkDeletionRequestStatus', input, async () => {
      const { checked } = await checkDeletionRequestNow(ctx.prisma, ctx.actor, input.deletionRequestId);
      return actionResult(ctx, input.deletionRequestId, `Status check requested for ${count(checked.length)}`, checked);
    }),
  );

export const checkStatusNow = memberProcedure
  .meta(
    actionMeta({
      path: `${integrationRequestPath}/check-status`,
      operationId: 'checkIntegrationRequestStatus',
      summary: "Check one integration request's status now",
      description:
        'Polls an accepted asynchronous job now instead of at its next scheduled poll (or makes a waiting attempt now).',
      successDescription: 'The integration request brought forward, and the deletion request as it is now.',
      conflict: 'The integration request has finished.',
      notFound: INTEGRATION_REQUEST_NOT_FOUND,
    }),
  )
  .input(onIntegrationRequest)
  .output(deletionRequestActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'checkIntegrationRequestStatus', input, async () => {
      const { trackingId } = await checkIntegrationRequestNow(
        ctx.prisma,
        ctx.actor,
        input.integrationRequestId,
        input.deletionRequestId,
      );
      return actionResult(
        ctx,
        input.deletionRequestId,
        trackingId ? 'Status check requested' : 'Immediate attempt requested',
        [input.integrationRequestId],
      );
    }),
  );
