import type { Actor } from '../services/auth/actor';
import { idempotencyKeyOf, runIdempotently, type KeepAnswer } from '../services/idempotency/idempotency-keys';
import type { Context } from '../trpc/context';

type Codec<T> = Parameters<typeof runIdempotently<T>>[4];

/**
 * A public POST run once per `Idempotency-Key` header (runIdempotently): a replay answers the
 * first answer with `Idempotent-Replayed: true`. `codec` decides what of the answer is kept; an
 * action that only writes to our database hands its answer to `keep` inside its transaction.
 */
export async function idempotentCall<T>(
  ctx: Context & { actor: Actor },
  operation: string,
  input: unknown,
  action: (keep: KeepAnswer<NoInfer<T>>) => Promise<T>,
  codec?: Codec<T>,
): Promise<T> {
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
