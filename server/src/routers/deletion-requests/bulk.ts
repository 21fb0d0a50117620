import { z } from 'zod';
import {
  BULK_ACTION_MAX,
  bulkActionResultSchema,
  bulkCancelInputSchema,
  bulkRetryInputSchema,
} from '@shared/schemas/bulk-actions';
import { requestSearchFilterSchema } from '@shared/schemas/dashboard';
import { refuseIdentifierInUrl } from '../identifier-in-url';
import { memberProcedure } from '../../trpc/procedures';
import {
  bulkCancel as cancelEach,
  bulkRetry as retryEach,
  countBulkTarget,
  type BulkTarget,
} from '../../pipeline/commands/bulk';
import { idempotentCall } from '../idempotent-call';
import { restMeta } from '../rest-meta';
import { idempotencyRequestHeaders, idempotencyResponseHeaders, TAG } from './shared-meta';

const targetOf = (input: {
  deletionRequestIds?: string[];
  filter?: z.output<typeof requestSearchFilterSchema>;
}): BulkTarget =>
  input.deletionRequestIds ? { deletionRequestIds: input.deletionRequestIds } : { filter: input.filter ?? {} };

const bulkMeta = (operation: {
  path: `/${string}`;
  operationId: string;
  summary: string;
  description: string;
  conflict: string;
}) =>
  restMeta({
    method: 'POST',
    tag: TAG,
    scope: 'requests:write',
    path: operation.path,
    operationId: operation.operationId,
    summary: operation.summary,
    description:
      `${operation.description} Name the requests in \`deletionRequestIds\` (at most ${BULK_ACTION_MAX}) or give a \`filter\` (at most ${BULK_ACTION_MAX} may match). ` +
      'Each request gets its own outcome in `items`, with the reason when it was skipped; each is audited as the single action is, and the bulk action once more as a whole. ' +
      'Send an `Idempotency-Key` header to make retries safe: the same key with the same request answers the first answer again; with another request it is a 422.',
    successDescription: 'What became of each request.',
    requestHeaders: idempotencyRequestHeaders,
    responseHeaders: idempotencyResponseHeaders,
    badRequestExample: {
      path: ['deletionRequestIds'],
      message: 'Give either deletionRequestIds or filter (one of them)',
    },
    errors: {
      400: `Neither or both of \`deletionRequestIds\` and \`filter\`, more than ${BULK_ACTION_MAX} ids, a malformed id or filter, or an Idempotency-Key longer than 255 characters.`,
      404: "One of the ids is not a deletion request of the token's organization; nothing was done.",
      409: `${operation.conflict} Also answered while an earlier call with the same Idempotency-Key is still running.`,
      422: 'This Idempotency-Key was already used with a different request.',
    },
  });

/** POST /deletion-requests/bulk-retry: retries the failed integrations of many requests at once. */
export const bulkRetry = memberProcedure
  .meta(
    bulkMeta({
      path: '/deletion-requests/bulk-retry',
      operationId: 'bulkRetryDeletionRequests',
      summary: 'Retry many deletion requests',
      description:
        'Sends every FAILED or ERROR integration request of each request again, with a fresh attempt budget and the configuration it was submitted with (`"submitted"`, default) or each integration\'s configuration now (`"current"`). A request with nothing failed is skipped.',
      conflict: `More than ${BULK_ACTION_MAX} requests match the filter.`,
    }),
  )
  .input(bulkRetryInputSchema)
  .output(bulkActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotentCall(ctx, 'bulkRetryDeletionRequests', input, () =>
      retryEach(ctx, ctx.actor, targetOf(input), input.configuration),
    ),
  );

/** POST /deletion-requests/bulk-cancel: cancels the unfinished integrations of many requests at once. */
export const bulkCancel = memberProcedure
  .meta(
    bulkMeta({
      path: '/deletion-requests/bulk-cancel',
      operationId: 'bulkCancelDeletionRequests',
      summary: 'Cancel many deletion requests',
      description:
        'Cancels every integration request that has not finished, as the single cancel does (here when not sent yet; at the destination when it supports cancel; otherwise the reason is given). A finished request is skipped. ' +
        'The optional `reason` (and `note`, required with `other`) is recorded on every request canceled, as for the single cancel.',
      conflict: `More than ${BULK_ACTION_MAX} requests match the filter.`,
    }),
  )
  .input(bulkCancelInputSchema)
  .output(bulkActionResultSchema)
  .mutation(({ ctx, input }) =>
    idempotentCall(ctx, 'bulkCancelDeletionRequests', input, () =>
      cancelEach(ctx, ctx.actor, targetOf(input), { reason: input.reason, note: input.note }),
    ),
  );

/**
 * How many requests a filter matches, for "select all N matching this filter" (counted up to
 * the bulk limit). Dashboard only; a filter by identifier comes as POST, as for the list.
 */
export const countMatching = memberProcedure
  .input(z.object({ filter: requestSearchFilterSchema.default({}) }))
  .query(({ ctx, input }) => {
    refuseIdentifierInUrl(ctx, input.filter);
    return countBulkTarget(ctx, ctx.actor, input.filter);
  });
