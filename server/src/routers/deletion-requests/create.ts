import { z } from 'zod';
import { deletionRequestSchema, identifierSchema } from '@shared/schemas/deletion-request';
import { AppError } from '../../lib/errors';
import { memberProcedure } from '../../trpc/procedures';
import { createDeletionRequest } from '../../pipeline/commands/create';
import { TAG } from './shared-meta';

const IDEMPOTENCY_KEY_MAX = 255;

/** POST /api/public/deletion-requests: the partner-facing create, with a Workspace API Key. */
export const create = memberProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/deletion-requests',
      operationId: 'createDeletionRequest',
      tags: [TAG],
      summary: 'Create a deletion request',
      description:
        'Records a request to delete the data of one subject from every enabled integration of the workspace that the Workspace API Key names. ' +
        'Send an `Idempotency-Key` header to make retries safe: the same key with the same body returns the original request; with a different body it is a 422.',
      protect: true,
      successDescription: 'The created deletion request (201), or the original one when an Idempotency-Key is replayed.',
      requestHeaders: z.object({ 'Idempotency-Key': z.string().max(IDEMPOTENCY_KEY_MAX).optional() }),
      errorResponses: {
        400: 'Invalid body (missing or empty identifier, malformed JSON)',
        401: 'Missing, invalid, revoked or expired personal access token',
        404: 'No workspace with this API key in the token\'s organization',
        413: 'Body too large',
        415: 'Body is not JSON',
        422: 'Idempotency-Key reused with a different body',
        429: 'Too many requests',
      },
    },
  })
  .input(z.object({ workspaceApiKey: z.string().min(1).max(200), identifier: identifierSchema }))
  .output(deletionRequestSchema)
  .mutation(async ({ ctx, input }) => {
    const idempotencyKey = ctx.headers['idempotency-key']?.trim() || undefined;
    if (idempotencyKey && idempotencyKey.length > IDEMPOTENCY_KEY_MAX) {
      throw new AppError('BAD_REQUEST', `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX} characters`);
    }
    const result = await createDeletionRequest(ctx, ctx.actor, { workspace: { apiKey: input.workspaceApiKey }, identifier: input.identifier, idempotencyKey });
    ctx.response.status = 201;
    if (result.replayed) ctx.response.headers['Idempotent-Replayed'] = 'true';
    return result.deletionRequest;
  });
