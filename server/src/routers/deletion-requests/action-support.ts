/** What the actions on one deletion request (and its integration requests) share: paths, inputs, answers, REST meta, idempotency. */
import { z } from 'zod';
import {
  deletionRequestIdSchema,
  integrationRequestIdSchema,
  retryConfigurationSchema,
  type DeletionRequestActionResult,
} from '@shared/schemas/deletion-request';
import type { Context } from '../../trpc/context';
import type { Actor } from '../../services/auth/actor';
import { getDeletionRequest } from '../../services/deletion-requests/get-deletion-request';
import { idempotentCall } from '../idempotent-call';
import { restMeta, type RestOperation } from '../rest-meta';
import {
  IDEMPOTENCY_KEY_REUSED,
  IDEMPOTENCY_NOTE,
  idempotencyRequestHeaders,
  idempotencyResponseHeaders,
  TAG,
} from './shared-meta';

export const requestPath = '/deletion-requests/{deletionRequestId}';
export const integrationRequestPath = `${requestPath}/integration-requests/{integrationRequestId}`;
export const onRequest = z.object({ deletionRequestId: deletionRequestIdSchema });
export const onIntegrationRequest = onRequest.extend({ integrationRequestId: integrationRequestIdSchema });
export const retryBody = { configuration: retryConfigurationSchema.default('submitted') };
export const MALFORMED_ID = { path: ['deletionRequestId'], message: 'must be a deletion request id (dr_…)' };

type Acting = Context & { actor: Actor };

/** The answer of every action: what it was applied to, what was refused, and the request as it is now. */
export async function actionResult(
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

export const count = (n: number) => `${n} integration request${n === 1 ? '' : 's'}`;
export const withConfiguration = (configuration: 'submitted' | 'current') =>
  configuration === 'current'
    ? "with the integration's current configuration"
    : 'with the configuration it was submitted with';

/**
 * Runs an action once per Idempotency-Key (a replay answers the first answer, with
 * `Idempotent-Replayed: true`); without the header it simply runs. The stored answer keeps no
 * subject identifier: a replay reads it from the request, as retention has left it.
 */
export async function idempotently(
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
  return idempotentCall(ctx, operation, input, action, codec);
}

/** The REST meta of a POST action on a request or one of its integration requests. */
export const actionMeta = (
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
    description: `${operation.description} ${IDEMPOTENCY_NOTE}`,
    requestHeaders: idempotencyRequestHeaders,
    responseHeaders: idempotencyResponseHeaders,
    badRequestExample: MALFORMED_ID,
    errors: {
      400: 'A malformed id (deletion requests are `dr_…`, integration requests `ir_…`), an invalid body, or an Idempotency-Key longer than 255 characters.',
      404: operation.notFound,
      409: `${operation.conflict} Also answered while an earlier call with the same Idempotency-Key is still running.`,
      422: IDEMPOTENCY_KEY_REUSED,
    },
  });

export const REQUEST_NOT_FOUND = "No deletion request with this id in the token's organization.";
export const INTEGRATION_REQUEST_NOT_FOUND =
  "No such deletion request in the token's organization, or no integration request with this id in it.";
