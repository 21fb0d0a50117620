import { z } from 'zod';
import { rotateIntegrationHashKey } from '../../services/integrations/rotate-hash-key';
import { adminProcedure } from '../../trpc/procedures';
import {
  IDEMPOTENCY_KEY_REUSED,
  IDEMPOTENCY_NOTE,
  idempotencyRequestHeaders,
  idempotencyResponseHeaders,
} from '../deletion-requests/shared-meta';
import { idempotentCall } from '../idempotent-call';
import { restMeta } from '../rest-meta';

/** POST /integrations/{integrationId}/rotate-hash-key: owners and admins; the key itself is never answered. */
export const rotateHashKey = adminProcedure
  .meta(
    restMeta({
      method: 'POST',
      path: '/integrations/{integrationId}/rotate-hash-key',
      operationId: 'rotateIntegrationHashKey',
      tag: 'Integrations',
      summary: "Rotate a SQL integration's hash key",
      description:
        "Replaces the secret key with which the integration's `hash` rules write HMAC-SHA256 values (`hmac:<hex>`) in the customer's database. " +
        'Values hashed from now on differ from those hashed before, which stay as written and still count as hashed. ' +
        'The key is never returned by any operation; the organization audit log records the rotation (`integration.hash_key_rotated`). ' +
        `Owners and admins, with a token without scope or workspace limits. ${IDEMPOTENCY_NOTE}`,
      successDescription: 'The integration and when its key was rotated.',
      requestHeaders: idempotencyRequestHeaders,
      responseHeaders: idempotencyResponseHeaders,
      badRequestExample: { path: ['integrationId'], message: 'Too big: expected string to have <=64 characters' },
      errors: {
        400: 'A malformed integration id (over 64 characters), an integration type that writes no hashes (only PostgreSQL and MySQL/MariaDB do), or an Idempotency-Key longer than 255 characters.',
        404: "No integration with this id in the token's organization.",
        409: 'An earlier call with the same Idempotency-Key is still running.',
        422: IDEMPOTENCY_KEY_REUSED,
      },
    }),
  )
  .input(z.object({ integrationId: z.string().max(64) }))
  .output(
    z.object({
      integrationId: z.string(),
      rotatedAt: z.string().meta({ description: 'When the new key was stored (ISO 8601).' }),
    }),
  )
  .mutation(({ ctx, input }) =>
    idempotentCall(ctx, 'rotateIntegrationHashKey', input, (keep) =>
      rotateIntegrationHashKey(ctx, ctx.actor, input.integrationId, keep),
    ),
  );
