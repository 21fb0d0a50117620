import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import { AppError } from '../lib/errors';
import type { Context } from './context';

const t = initTRPC
  .meta<OpenApiMeta>()
  .context<Context>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const zodIssues = error.cause instanceof ZodError ? error.cause.issues : undefined;
      const issues = zodIssues ?? (error.cause instanceof AppError ? error.cause.details?.issues : undefined);
      const message =
        error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : zodIssues ? 'Input validation failed' : error.message;
      const body = { code: error.code, message, ...(issues ? { issues } : {}) };
      // The public API's body is exactly { code, message, issues? }; the dashboard's tRPC
      // client also gets the HTTP status and path. Never a stack trace.
      if (ctx?.channel !== 'trpc') return body;
      return { ...body, data: { code: error.code, httpStatus: shape.data.httpStatus, path: shape.data.path } };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;

/** Converts AppError thrown by services into the matching tRPC error, once for all procedures. */
const mapAppErrors = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    if (cause.details?.retryAfterSeconds) ctx.response.headers['Retry-After'] = String(cause.details.retryAfterSeconds);
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  return result;
});

export const baseProcedure = t.procedure.use(mapAppErrors);
