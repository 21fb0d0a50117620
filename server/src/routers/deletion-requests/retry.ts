import { deletionRequestActionResultSchema } from '@shared/schemas/deletion-request';
import { memberProcedure } from '../../trpc/procedures';
import { retryDeletionRequest, retryIntegrationRequest } from '../../pipeline/commands/retry';
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
  retryBody,
  withConfiguration,
} from './action-support';

/** Retry a deletion request's failed integration requests, or one of them. */
export const retry = memberProcedure
  .meta(
    actionMeta({
      path: `${requestPath}/retry`,
      operationId: 'retryDeletionRequest',
      summary: 'Retry a deletion request',
      description:
        'Sends every FAILED or ERROR integration request again, with a fresh attempt budget. `configuration: "submitted"` (default) uses the configuration frozen when the request was created; `"current"` uses each integration\'s configuration now (after fixing a URL or a rule). ' +
        'A request that had no enabled integrations is sent to the integrations enabled now.',
      successDescription: 'The integration requests sent again, and the request as it is now.',
      conflict:
        'Nothing to retry (no integration request has failed), the integration was deleted or disabled (with `current`), the workspace still has no enabled integrations, or the retention policy has hashed or deleted the identifier.',
      notFound: REQUEST_NOT_FOUND,
    }),
  )
  .input(onRequest.extend(retryBody))
  .output(deletionRequestActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'retryDeletionRequest', input, async () => {
      const { retried } = await retryDeletionRequest(ctx.prisma, ctx.actor, input.deletionRequestId, {
        configuration: input.configuration,
      });
      return actionResult(
        ctx,
        input.deletionRequestId,
        `${count(retried.length)} sent again ${withConfiguration(input.configuration)}`,
        retried,
      );
    }),
  );

export const retryIntegration = memberProcedure
  .meta(
    actionMeta({
      path: `${integrationRequestPath}/retry`,
      operationId: 'retryIntegrationRequest',
      summary: 'Retry one integration request',
      description:
        'Sends one FAILED or ERROR integration request again with a fresh attempt budget, with the configuration it was submitted with (`"submitted"`, default) or the integration\'s configuration now (`"current"`).',
      successDescription: 'The integration request sent again, and the deletion request as it is now.',
      conflict:
        'The integration request has not failed, (with `current`) its integration was deleted or disabled, or the retention policy has hashed or deleted the identifier.',
      notFound: INTEGRATION_REQUEST_NOT_FOUND,
    }),
  )
  .input(onIntegrationRequest.extend(retryBody))
  .output(deletionRequestActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'retryIntegrationRequest', input, async () => {
      await retryIntegrationRequest(ctx.prisma, ctx.actor, input.integrationRequestId, {
        deletionRequestId: input.deletionRequestId,
        configuration: input.configuration,
      });
      return actionResult(ctx, input.deletionRequestId, `Sent again ${withConfiguration(input.configuration)}`, [
        input.integrationRequestId,
      ]);
    }),
  );
