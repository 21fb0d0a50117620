import { z } from 'zod';
import {
  auditEntrySchema,
  auditTrailQuerySchema,
  deletionRequestActionResultSchema,
  deletionRequestIdSchema,
  deletionRequestSchema,
  integrationRequestIdSchema,
  queryBoolean,
  retryConfigurationSchema,
  type DeletionRequestActionResult,
} from '@shared/schemas/deletion-request';
import type { Context } from '../../trpc/context';
import type { Actor } from '../../services/auth/actor';
import { memberProcedure } from '../../trpc/procedures';
import { cancelDeletionRequest, cancelIntegrationRequest } from '../../pipeline/commands/cancel';
import { checkDeletionRequestNow, checkIntegrationRequestNow } from '../../pipeline/commands/check-now';
import { retryDeletionRequest, retryIntegrationRequest } from '../../pipeline/commands/retry';
import { getAuditTrail, getDeletionRequest } from '../../services/deletion-requests/get-deletion-request';
import { idempotencyKeyOf, runIdempotently } from '../../services/idempotency/idempotency-keys';
import { restMeta, type RestOperation } from '../rest-meta';
import { idempotencyRequestHeaders, idempotencyResponseHeaders, setNextLink, TAG } from './shared-meta';

const requestPath = '/deletion-requests/{deletionRequestId}';
const integrationRequestPath = `${requestPath}/integration-requests/{integrationRequestId}`;
const onRequest = z.object({ deletionRequestId: deletionRequestIdSchema });
const onIntegrationRequest = onRequest.extend({ integrationRequestId: integrationRequestIdSchema });
const retryBody = { configuration: retryConfigurationSchema.default('submitted') };
const MALFORMED_ID = { path: ['deletionRequestId'], message: 'must be a deletion request id (dr_…)' };

type Acting = Context & { actor: Actor };

/** The answer of every action: what it was applied to, what was refused, and the request as it is now. */
async function actionResult(
  ctx: Acting,
  deletionRequestId: string,
  message: string,
  integrationRequestIds: string[],
  refused: DeletionRequestActionResult['refused'] = [],
): Promise<DeletionRequestActionResult> {
  return {
    deletionRequest: await getDeletionRequest(ctx.prisma, ctx.actor, deletionRequestId),
    integrationRequestIds,
    refused,
    message,
  };
}

const count = (n: number) => `${n} integration request${n === 1 ? '' : 's'}`;
const withConfiguration = (configuration: 'submitted' | 'current') =>
  configuration === 'current'
    ? "with the integration's current configuration"
    : 'with the configuration it was submitted with';

/**
 * Runs an action once per Idempotency-Key (a replay answers the first answer, with
 * `Idempotent-Replayed: true`); without the header it simply runs. The stored answer keeps no
 * subject identifier: a replay reads it from the request, as retention has left it.
 */
async function idempotently(
  ctx: Acting,
  operation: string,
  input: unknown,
  action: () => Promise<DeletionRequestActionResult>,
) {
  const codec = {
    store: (result: DeletionRequestActionResult) => ({
      ...result,
      deletionRequest: { ...result.deletionRequest, identifier: null, hashed: false },
    }),
    restore: async (stored: unknown) => {
      const answer = stored as DeletionRequestActionResult;
      const { identifier, hashed } = await getDeletionRequest(ctx.prisma, ctx.actor, answer.deletionRequest.id);
      return { ...answer, deletionRequest: { ...answer.deletionRequest, identifier, hashed } };
    },
  };
  const { result, replayed } = await runIdempotently(
    ctx.prisma,
    ctx.actor,
    { key: idempotencyKeyOf(ctx.headers), operation, input },
    action,
    codec,
  );
  if (replayed) ctx.response.headers['Idempotent-Replayed'] = 'true';
  return result;
}

/** The REST meta of a POST action on a request or one of its integration requests. */
const actionMeta = (
  operation: Pick<RestOperation, 'path' | 'operationId' | 'summary' | 'description' | 'successDescription'> & {
    conflict: string;
    notFound: string;
  },
) =>
  restMeta({
    method: 'POST',
    tag: TAG,
    scope: 'requests:write',
    ...operation,
    description: `${operation.description} Send an \`Idempotency-Key\` header to make retries safe: the same key with the same request answers the first answer again; with another request it is a 422.`,
    requestHeaders: idempotencyRequestHeaders,
    responseHeaders: idempotencyResponseHeaders,
    badRequestExample: MALFORMED_ID,
    errors: {
      400: 'A malformed id (deletion requests are `dr_…`, integration requests `ir_…`), an invalid body, or an Idempotency-Key longer than 255 characters.',
      404: operation.notFound,
      409: `${operation.conflict} Also answered while an earlier call with the same Idempotency-Key is still running.`,
      422: 'This Idempotency-Key was already used with a different request.',
    },
  });

const REQUEST_NOT_FOUND = "No deletion request with this id in the token's organization.";
const INTEGRATION_REQUEST_NOT_FOUND =
  "No such deletion request in the token's organization, or no integration request with this id in it.";

/** GET /deletion-requests/{id}: a deletion request with its integration requests. */
export const get = memberProcedure
  .meta(
    restMeta({
      method: 'GET',
      path: requestPath,
      operationId: 'getDeletionRequest',
      tag: TAG,
      scope: 'requests:read',
      summary: 'Get a deletion request',
      description:
        'One deletion request with its integration requests (status, attempts, tracking id, last error per integration).',
      successDescription: 'The deletion request.',
      badRequestExample: MALFORMED_ID,
      errors: {
        400: 'A malformed id (deletion requests are `dr_…`) or an invalid fetchHashed.',
        404: REQUEST_NOT_FOUND,
      },
    }),
  )
  .input(
    onRequest.extend({
      fetchHashed: queryBoolean(true).meta({
        description: 'When true, an identifier that has been hashed is redacted.',
      }),
    }),
  )
  .output(deletionRequestSchema)
  .query(({ ctx, input }) =>
    getDeletionRequest(ctx.prisma, ctx.actor, input.deletionRequestId, { fetchHashed: input.fetchHashed }),
  );

/** GET /deletion-requests/{id}/audit-trail: oldest first, paginated like the lists. */
export const auditTrail = memberProcedure
  .meta(
    restMeta({
      method: 'GET',
      path: `${requestPath}/audit-trail`,
      operationId: 'listDeletionRequestAuditTrail',
      tag: TAG,
      scope: 'requests:read',
      summary: "List a deletion request's audit trail",
      description:
        'Every recorded step of the request, oldest first: creation, each attempt with the HTTP exchange or SQL it made (account secrets redacted, bodies truncated at 4 KB), status checks, retries, cancels and completion. ' +
        'Paginated with `limit` and `cursor`; the next page is announced in the `Link` header.',
      successDescription: 'One page of audit entries, oldest first.',
      responseHeaders: z.object({
        Link: z.string().optional().meta({ description: 'Present when there is a next page: `<url>; rel="next"`.' }),
      }),
      badRequestExample: MALFORMED_ID,
      errors: {
        400: 'A malformed id (deletion requests are `dr_…`), or an invalid limit or cursor.',
        404: REQUEST_NOT_FOUND,
      },
    }),
  )
  .input(onRequest.extend(auditTrailQuerySchema.shape))
  .output(z.array(auditEntrySchema))
  .query(async ({ ctx, input }) => {
    const { deletionRequestId, cursor, limit } = input;
    const page = await getAuditTrail(ctx.prisma, ctx.actor, deletionRequestId, { limit, cursor });
    setNextLink(
      ctx,
      `/deletion-requests/${encodeURIComponent(deletionRequestId)}/audit-trail`,
      { limit },
      page.nextCursor,
    );
    return page.entries;
  });

export const cancel = memberProcedure
  .meta(
    actionMeta({
      path: `${requestPath}/cancel`,
      operationId: 'cancelDeletionRequest',
      summary: 'Cancel a deletion request',
      description:
        'Cancels every integration request that has not finished: one not sent yet is canceled here; one a destination has accepted is canceled there when the destination supports it; the others are listed in `refused` with the reason. Finished ones are never touched.',
      successDescription: 'What was canceled, what could not be (with the reason), and the request as it is now.',
      conflict: 'The request has finished: nothing to cancel.',
      notFound: REQUEST_NOT_FOUND,
    }),
  )
  .input(onRequest)
  .output(deletionRequestActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotently(ctx, 'cancelDeletionRequest', input, async () => {
      const { canceled, refused } = await cancelDeletionRequest(ctx, ctx.actor, input.deletionRequestId);
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
        'Nothing to retry (no integration request has failed), the integration was deleted or disabled (with `current`), or the workspace still has no enabled integrations.',
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

export const retryIntegration = memberProcedure
  .meta(
    actionMeta({
      path: `${integrationRequestPath}/retry`,
      operationId: 'retryIntegrationRequest',
      summary: 'Retry one integration request',
      description:
        'Sends one FAILED or ERROR integration request again with a fresh attempt budget, with the configuration it was submitted with (`"submitted"`, default) or the integration\'s configuration now (`"current"`).',
      successDescription: 'The integration request sent again, and the deletion request as it is now.',
      conflict: 'The integration request has not failed, or (with `current`) its integration was deleted or disabled.',
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
