import {
  ERASURE_CHECK_BATCH_MAX,
  erasureCheckBatchInputSchema,
  erasureCheckBatchResultSchema,
  erasureCheckInputSchema,
  erasureCheckResultSchema,
} from '@shared/schemas/erasure-check';
import { AppError } from '../../lib/errors';
import { rateLimitersFor } from '../../lib/rate-limit';
import { checkErasure } from '../../services/erasure-checks/check-erasure';
import type { Actor } from '../../services/auth/actor';
import type { Context } from '../../trpc/context';
import { memberProcedure } from '../../trpc/procedures';
import { restMeta } from '../rest-meta';

const TAG = 'Erasure checks';

/** Erasure checks count identifiers, not calls, against ERASURE_CHECK_LIMIT_PER_TOKEN. */
function takeRateLimit(ctx: Context & { actor: Actor }, identifiers: number) {
  const decision = rateLimitersFor(ctx.config).erasureChecksPerToken.take(
    ctx.actor.tokenId ?? ctx.actor.userId,
    Date.now(),
    identifiers,
  );
  if (!decision.allowed) {
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Too many identifiers checked for this token; retry after ${decision.retryAfterSeconds} second(s)`,
      {
        retryAfterSeconds: decision.retryAfterSeconds,
      },
    );
  }
}

const RATE_LIMIT_NOTE =
  'Rate limited by identifiers checked per token per minute (`ERASURE_CHECK_LIMIT_PER_TOKEN`), and audited (how many were checked and found, never which).';

/** POST /api/public/erasure-checks: has this subject been (asked to be) erased here? */
export const check = memberProcedure
  .meta(
    restMeta({
      method: 'POST',
      path: '/erasure-checks',
      operationId: 'checkErasure',
      tag: TAG,
      scope: 'erasure-checks:read',
      summary: 'Check whether a subject has a deletion request',
      description:
        "Answers whether a deletion request for this subject identifier exists in the token's organization (and workspaces), with the latest request's status and completion time. " +
        'Ingestion pipelines use it to refuse re-importing an erased subject. The identifier is matched by its keyed hash, so the answer survives retention hashing it; ' +
        'a request whose identifier retention deleted can no longer be matched. The identifier travels in the body, never in a URL. ' +
        RATE_LIMIT_NOTE,
      successDescription: 'The answer for this identifier (`found: false` when no request exists).',
      errors: { 400: 'Invalid body (missing, empty or too long identifier; malformed JSON).' },
    }),
  )
  .input(erasureCheckInputSchema)
  .output(erasureCheckResultSchema)
  .mutation(async ({ ctx, input }) => {
    takeRateLimit(ctx, 1);
    const [result] = await checkErasure(ctx.prisma, ctx.keyring, ctx.actor, [input.identifier]);
    return result!;
  });

/** POST /api/public/erasure-checks/batch: up to 1,000 identifiers in one call. */
export const checkBatch = memberProcedure
  .meta(
    restMeta({
      method: 'POST',
      path: '/erasure-checks/batch',
      operationId: 'checkErasureBatch',
      tag: TAG,
      scope: 'erasure-checks:read',
      summary: 'Check up to 1,000 subjects at once',
      description: `The batch form of the erasure check: 1 to ${ERASURE_CHECK_BATCH_MAX} identifiers, one result each, in the order sent. ${RATE_LIMIT_NOTE}`,
      successDescription: 'One result per identifier, in the order they were sent.',
      errors: {
        400: `Invalid body (no identifiers, more than ${ERASURE_CHECK_BATCH_MAX}, an empty or too long one; malformed JSON).`,
      },
    }),
  )
  .input(erasureCheckBatchInputSchema)
  .output(erasureCheckBatchResultSchema)
  .mutation(async ({ ctx, input }) => {
    takeRateLimit(ctx, input.identifiers.length);
    return { results: await checkErasure(ctx.prisma, ctx.keyring, ctx.actor, input.identifiers) };
  });
