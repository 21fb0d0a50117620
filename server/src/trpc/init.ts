import { initTRPC, TRPCError } from '@trpc/server';
import { getTRPCErrorFromUnknown } from '@trpc/server/unstable-core-do-not-import';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import type { TokenScope } from '@shared/scopes';
import { AppError } from '../lib/errors';
import { PermanentError, TransientError } from '../integrations/types';
import { findInputProblem } from '../lib/input-guard';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnreachable } from '../db/connections';
import type { Context } from './context';

/** A procedure's meta: its REST mapping, and the token scope it needs (none: only tokens without limits may call it). */
export type AppMeta = OpenApiMeta<{ scope?: TokenScope }>;

const t = initTRPC
  .meta<AppMeta>()
  .context<Context>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const zodIssues = error.cause instanceof ZodError ? error.cause.issues : undefined;
      const issues = zodIssues ?? (error.cause instanceof AppError ? error.cause.details?.issues : undefined);
      const message =
        error.code === 'INTERNAL_SERVER_ERROR'
          ? 'Internal server error'
          : zodIssues
            ? 'Input validation failed'
            : error.message;
      // The public API's body is exactly { code, message, issues? } with the code's name.
      if (ctx?.channel !== 'trpc') return { code: error.code, message, ...(issues ? { issues } : {}) };
      // The dashboard's tRPC client needs the JSON-RPC number in `code`; the name is in
      // `data.code`. Never a stack trace on either channel.
      return {
        code: shape.code,
        message,
        ...(issues ? { issues } : {}),
        data: { code: error.code, httpStatus: shape.data.httpStatus, path: shape.data.path },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;

/** Errors that say what happened themselves: an AppError, or a destination's (whose refused connection is no outage of ours). */
const isDestinationOrAppError = (error: unknown) =>
  error instanceof AppError || error instanceof PermanentError || error instanceof TransientError;

/**
 * Converts AppError thrown by services into the matching tRPC error, once for all
 * procedures; a lost or refused connection to the service's own database becomes 503 with Retry-After.
 */
export function mapAppErrors<R extends { ok: boolean; error?: TRPCError }>(ctx: Context, result: R): R {
  if (result.ok || !result.error) return result;
  const cause = result.error.cause;
  if (!isDestinationOrAppError(cause) && isDatabaseUnreachable(cause)) {
    ctx.response.headers['Retry-After'] = String(DATABASE_RETRY_AFTER_SECONDS);
    throw new TRPCError({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is not reachable at the moment; try again shortly',
      cause,
    });
  }
  if (cause instanceof AppError) {
    if (cause.details?.retryAfterSeconds) ctx.response.headers['Retry-After'] = String(cause.details.retryAfterSeconds);
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  return result;
}

/**
 * Every procedure's raw input, before its zod schema and before anything else: nesting
 * depth bounded, and no string PostgreSQL cannot store (NUL) or that is not Unicode (a
 * lone surrogate). Here once, so no procedure can forget it. The public REST paths' input
 * (body, query and path) was checked by the HTTP layer before routing (`registerInputGuards`)
 * and is not walked again.
 */
export async function refuseInputProblem(ctx: Context, getRawInput: () => Promise<unknown>): Promise<void> {
  if (ctx.channel === 'rest') return;
  const problem = findInputProblem(await getRawInput());
  if (!problem) return;
  const cause = new AppError('BAD_REQUEST', problem.message, {
    issues: [{ code: 'custom', path: problem.path, message: problem.message }],
  });
  throw new TRPCError({ code: 'BAD_REQUEST', message: cause.message, cause });
}

/** An error thrown by a middleware before its `next()`, as `mapAppErrors` maps the error of a later level. */
export function throwMapped(ctx: Context, error: unknown): never {
  const mapped = getTRPCErrorFromUnknown(error);
  mapAppErrors(ctx, { ok: false, error: mapped });
  throw mapped;
}

/**
 * The input guard and the error mapping as one middleware: each level of tRPC's middleware chain copies the call's
 * options twice, so the checks every procedure runs share one level. A kind of procedure that
 * checks more before it runs (`authedProcedure`) starts from `unguardedProcedure` and does both
 * in its own single level.
 */
const guardAndMapErrors = t.middleware(async ({ ctx, getRawInput, next }) => {
  await refuseInputProblem(ctx, getRawInput);
  return mapAppErrors(ctx, await next());
});

export const baseProcedure = t.procedure.use(guardAndMapErrors);

/** A procedure without the guard above: only for a first level that runs `refuseInputProblem` and `mapAppErrors` itself. */
export const unguardedProcedure = t.procedure;
