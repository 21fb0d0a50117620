import { z } from 'zod';
import { deletionRequestSchema, identifierSchema, receivedAtSchema } from '@shared/schemas/deletion-request';
import { regulationNameSchema } from '@shared/deadlines';
import { identifierTypeNameSchema, requestIdentifiersInputSchema } from '@shared/identifiers';
import { onDuplicateSchema } from '@shared/schemas/person';
import { AppError } from '../../lib/errors';
import { memberProcedure } from '../../trpc/procedures';
import { createDeletionRequest } from '../../pipeline/commands/create';
import { TAG } from './shared-meta';
import { restMeta } from '../rest-meta';

const IDEMPOTENCY_KEY_MAX = 255;

/** POST /api/public/deletion-requests: the partner-facing create, with a Workspace API Key. */
export const create = memberProcedure
  .meta(
    restMeta({
      method: 'POST',
      path: '/deletion-requests',
      operationId: 'createDeletionRequest',
      tag: TAG,
      scope: 'requests:write',
      summary: 'Create a deletion request',
      description:
        'Records a request to delete the data of one subject from every enabled integration of the workspace that the Workspace API Key names. ' +
        "The subject may be named by several typed identifiers (`identifiers`): each integration receives the values of the identifier type it consumes, and the workspace's identity lookups may add more before the fan-out. " +
        'Send an `Idempotency-Key` header to make retries safe: the same key with the same body returns the original request; with a different body it is a 422. ' +
        'With `onDuplicate: "return_existing"`, a person who already has an open request in the organization (any identifier equal as its type compares them: emails without case, phones in E.164) gets that request back with 200, and nothing is recorded.',
      successStatus: 201,
      successDescription:
        'The created deletion request, or the original one when an Idempotency-Key is replayed (header `Idempotent-Replayed: true`).',
      otherSuccess: {
        status: 200,
        description:
          'With `onDuplicate: "return_existing"`: the person\'s most recent open request, already recorded; nothing new was created.',
      },
      requestHeaders: z.object({ 'Idempotency-Key': z.string().max(IDEMPOTENCY_KEY_MAX).optional() }),
      responseHeaders: z.object({
        'Idempotent-Replayed': z
          .literal('true')
          .optional()
          .meta({ description: 'Present when this is the answer of an earlier call with the same Idempotency-Key.' }),
      }),
      errors: {
        400: 'Invalid body (missing or empty identifier, an unknown identifier type, a value its type refuses, a duplicate identifier, more than 50 identifiers, unknown regulation, a receivedAt that is not a date or is in the future, malformed JSON) or Idempotency-Key too long.',
        404: "No workspace with this API key in the token's organization.",
        409: "The workspace's integrations changed while the request was being created; send it again.",
        422: 'This Idempotency-Key was already used with a different request body.',
      },
    }),
  )
  .input(
    z.object({
      workspaceApiKey: z.string().min(1).max(200).meta({
        description: 'The Workspace API Key of the workspace whose integrations receive the request.',
        example: 'dds_wsk_…',
      }),
      identifier: identifierSchema,
      identifierType: identifierTypeNameSchema.optional().meta({
        description:
          'The type of `identifier` (email, phone, user_id or a type of the organization). Absent: email when it reads as an email address, else untyped (it then reaches only integrations that take the primary identifier).',
        example: 'email',
      }),
      identifiers: requestIdentifiersInputSchema.optional(),
      receivedAt: receivedAtSchema.optional(),
      regulation: regulationNameSchema.optional().meta({
        description:
          "The regulation whose deadline applies (GDPR, CCPA or a custom policy of the organization); by default the workspace's.",
        example: 'GDPR',
      }),
      onDuplicate: onDuplicateSchema.optional(),
    }),
  )
  .output(deletionRequestSchema)
  .mutation(async ({ ctx, input }) => {
    const idempotencyKey = ctx.headers['idempotency-key']?.trim() || undefined;
    if (idempotencyKey && idempotencyKey.length > IDEMPOTENCY_KEY_MAX) {
      throw new AppError('BAD_REQUEST', `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX} characters`);
    }
    const result = await createDeletionRequest(ctx, ctx.actor, {
      workspace: { apiKey: input.workspaceApiKey },
      identifier: input.identifier,
      identifierType: input.identifierType,
      identifiers: input.identifiers,
      idempotencyKey,
      regulation: input.regulation,
      receivedAt: input.receivedAt,
      onDuplicate: input.onDuplicate,
    });
    // 201: recorded now (or by the call an Idempotency-Key replays); 200: the open request that was already there.
    ctx.response.status = result.existing ? 200 : 201;
    if (result.replayed) ctx.response.headers['Idempotent-Replayed'] = 'true';
    return result.deletionRequest;
  });
