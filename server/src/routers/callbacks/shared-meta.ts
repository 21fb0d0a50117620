import { z } from 'zod';
import type { Context } from '../../trpc/context';
import type { Actor } from '../../services/auth/actor';
import { endpointSecretContext } from '../../callbacks/endpoints';
import type { KeepAnswer } from '../../services/idempotency/idempotency-keys';
import { idempotentCall } from '../idempotent-call';
import { openSecret, sealSecret } from '../../services/keys/secret-store';
import { restMeta, type BadRequestExample, type RestOperation } from '../rest-meta';
import {
  IDEMPOTENCY_KEY_REUSED,
  IDEMPOTENCY_NOTE,
  idempotencyRequestHeaders,
  idempotencyResponseHeaders,
} from '../deletion-requests/shared-meta';

const TAG = 'Callbacks';
export const endpointPath = '/callback-endpoints/{endpointId}';
export const onEndpoint = z.object({ endpointId: z.string().max(64) });
export const MALFORMED_ENDPOINT_ID: BadRequestExample = {
  path: ['endpointId'],
  message: 'Too big: expected string to have <=64 characters',
};
export const ENDPOINT_NOT_FOUND =
  "No callback endpoint with this id in the token's organization (or in the workspaces the token is limited to).";

/**
 * The REST meta of a callback operation: admins, or tokens with `callbacks:manage`. A POST
 * takes an `Idempotency-Key`, as every POST of the API does.
 */
export function callbackMeta(
  operation: Pick<
    RestOperation,
    'method' | 'path' | 'operationId' | 'summary' | 'description' | 'successDescription'
  > & {
    successStatus?: 201;
    errors?: RestOperation['errors'];
    badRequestExample?: BadRequestExample;
  },
) {
  const post = operation.method === 'POST';
  const tooLongKey = 'An Idempotency-Key longer than 255 characters.';
  const badRequest = operation.errors?.[400];
  return restMeta({
    tag: TAG,
    scope: 'callbacks:manage',
    ...operation,
    description: post ? `${operation.description} ${IDEMPOTENCY_NOTE}` : operation.description,
    ...(post ? { requestHeaders: idempotencyRequestHeaders, responseHeaders: idempotencyResponseHeaders } : {}),
    errors: {
      ...(post
        ? {
            409: 'An earlier call with the same Idempotency-Key is still running.',
            422: IDEMPOTENCY_KEY_REUSED,
          }
        : {}),
      ...operation.errors,
      ...(post ? { 400: badRequest ? `${badRequest} ${tooLongKey}` : tooLongKey } : {}),
    },
  });
}

/**
 * Runs a POST once per Idempotency-Key. `sealedSecret`: the answer carries a signing secret,
 * which the stored answer keeps encrypted with the organization's key (never in clear).
 */
export async function idempotently<T extends object>(
  ctx: Context & { actor: Actor },
  operation: string,
  input: unknown,
  action: (keep: KeepAnswer<NoInfer<T>>) => Promise<T>,
  sealedSecret = false,
): Promise<T> {
  const deps = { prisma: ctx.prisma, keyring: ctx.keyring };
  const organizationId = ctx.actor.organizationId;
  const context = (answer: { id: string }) => `${endpointSecretContext(answer.id)}:idempotent-answer`;
  const codec = {
    store: async (answer: T) => {
      const { secret, ...rest } = answer as T & { id: string; secret: string };
      return { ...rest, sealedSecret: await sealSecret(deps, organizationId, secret, context(rest)) };
    },
    restore: async (stored: unknown) => {
      const { sealedSecret: sealed, ...rest } = stored as { id: string; sealedSecret: string };
      return { ...rest, secret: await openSecret(deps, organizationId, sealed, context(rest)) } as unknown as T;
    },
  };
  return idempotentCall(ctx, operation, input, action, sealedSecret ? codec : undefined);
}
