import { TRPCError, type AnyRouter } from '@trpc/server';
import { getErrorShape } from '@trpc/server/unstable-core-do-not-import';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  TRPC_ERROR_CODE_HTTP_STATUS,
  acceptsRequestBody,
  coerceSchema,
  createProcedureCache,
  getBody,
  getContentType,
  getErrorFromUnknown,
  getInputOutputParsers,
  getQuery,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce,
  type OpenApiMethod,
} from 'trpc-to-openapi';
import { ZodArray } from 'zod';

/** What the facade needs: trpc-to-openapi's handler options, typed as the app uses them. */
export interface RestFacadeOptions<Ctx> {
  router: AnyRouter;
  basePath: string;
  createContext: (opts: { req: FastifyRequest; res: FastifyReply; info: CallInfo }) => Ctx | Promise<Ctx>;
  onError?: (opts: { error: TRPCError; type: string; path?: string; input: unknown; ctx?: Ctx }) => void;
  responseMeta?: (opts: {
    type: string;
    paths?: string[];
    ctx?: Ctx;
    data: unknown[];
    errors: TRPCError[];
    info?: CallInfo;
    eagerGeneration: boolean;
  }) => { status?: number; headers?: Record<string, string | string[] | undefined> } | undefined;
}

/** What a tRPC procedure is called with (`createCallerFactory` in @trpc/server passes the same). */
interface ProcedureCallOptions<Ctx> {
  path: string;
  getRawInput: () => Promise<unknown>;
  ctx: Ctx;
  type: 'query' | 'mutation';
  signal: AbortSignal | undefined;
  batchIndex: number;
}

/** The call's description handed to `createContext`, as tRPC's adapters give it. */
interface CallInfo {
  isBatchCall: false;
  accept: null;
  calls: [];
  type: string;
  connectionParams: null;
  signal: AbortSignal;
  url: URL;
}

const METHODS: OpenApiMethod[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/**
 * The public REST paths, served from the tRPC procedures' OpenAPI metadata: trpc-to-openapi's
 * routing, input coercion, errors and status codes, run on Fastify's request and reply as they
 * are. Its own Fastify plugin builds a Fetch `Request` around every call (the parsed body
 * serialised again, a stream around it) only to get an abort signal, and re-applies the input
 * schema's coercion per call; here the signal is the reply's own (aborted when the client goes
 * away before the answer, never after) and each schema is coerced once.
 */
export async function registerRestFacade<Ctx>(app: FastifyInstance, options: RestFacadeOptions<Ctx>): Promise<void> {
  const { router, createContext, responseMeta, onError } = options;
  const prefix = options.basePath.replace(/\/$/, '');
  const procedureFor = createProcedureCache(router);
  const coerced = new WeakSet<object>();

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const send = (status: number, headers: Record<string, string | string[] | undefined>, body: unknown) => {
      void reply.code(status).header('content-type', 'application/json');
      for (const [key, value] of Object.entries(headers)) if (value !== undefined) void reply.header(key, value);
      return reply.send(JSON.stringify(body));
    };
    const method = req.method as OpenApiMethod | 'HEAD';
    const url = new URL(`http://127.0.0.1${req.url.slice(prefix.length)}`);
    const found = procedureFor(method as OpenApiMethod, normalizePath(url.pathname));
    const procedure = found?.procedure;
    let input: unknown = undefined;
    let ctx: Ctx | undefined = undefined;
    let info: CallInfo | undefined = undefined;
    let data: unknown = undefined;
    try {
      if (!found || !procedure) {
        // Can be used for warm-up, as trpc-to-openapi's adapters allow.
        if (method === 'HEAD') return send(204, {}, undefined);
        throw new TRPCError({ message: 'Not found', code: 'NOT_FOUND' });
      }
      const contentType = getContentType(req.raw);
      const useBody = acceptsRequestBody(method);
      if (useBody && !contentType?.startsWith('application/json'))
        throw new TRPCError({
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: contentType ? `Unsupported content-type "${contentType}` : 'Missing content-type header',
        });
      const { inputParser } = getInputOutputParsers(procedure.procedure);
      const schema = unwrapZodType(inputParser, true);
      // Input stays undefined for z.void().
      if (!instanceofZodTypeLikeVoid(schema)) {
        const given = useBody ? await getBody(req as never) : getQuery(req as never, url);
        input = { ...given, ...found.pathInput };
      }
      // Query strings are strings: coerce every value to its type (arrays from a single value).
      if (zodSupportsCoerce && instanceofZodTypeObject(schema)) {
        if (!useBody) wrapSingleValuesOfArrays(schema.shape, input as Record<string, unknown>);
        if (!coerced.has(schema)) {
          coerceSchema(schema);
          coerced.add(schema);
        }
      }
      info = callInfo(procedure.type, url, reply);
      ctx = await createContext({ req, res: reply, info });
      // The procedure itself, as tRPC's server-side caller calls it (without building a caller
      // for the whole router per call to find the one procedure this route already names).
      const given = input;
      data = await (procedure.procedure as unknown as (opts: ProcedureCallOptions<Ctx>) => Promise<unknown>)({
        path: procedure.path,
        getRawInput: async () => given,
        ctx,
        type: procedure.type,
        signal: undefined,
        batchIndex: 0,
      });
      const meta = responseMeta?.({
        type: procedure.type,
        paths: [procedure.path],
        ctx,
        data: [data],
        errors: [],
        info,
        eagerGeneration: true,
      });
      return send(meta?.status ?? 200, meta?.headers ?? {}, data);
    } catch (cause) {
      const error = getErrorFromUnknown(cause);
      const type = procedure?.type ?? 'unknown';
      onError?.({ error, type, path: procedure?.path, input, ctx });
      const meta = responseMeta?.({
        type,
        paths: procedure?.path ? [procedure.path] : undefined,
        ctx,
        data: [data],
        errors: [error],
        info,
        eagerGeneration: true,
      });
      const shape = getErrorShape({
        config: router._def._config,
        error,
        type: type as never,
        path: procedure?.path,
        input,
        ctx,
      }) as { message?: string } | undefined;
      const invalidInput =
        error.code === 'BAD_REQUEST' && error.cause instanceof Error && error.cause.name === 'ZodError';
      return send(meta?.status ?? TRPC_ERROR_CODE_HTTP_STATUS[error.code] ?? 500, meta?.headers ?? {}, {
        ...shape,
        message: invalidInput ? 'Input validation failed' : (shape?.message ?? error.message ?? 'An error occurred'),
        code: error.code,
        issues: invalidInput ? (error.cause as unknown as { issues: unknown }).issues : undefined,
      });
    }
  };
  app.route({ method: METHODS, url: `${prefix}/*`, handler });
}

/** A query string's single value for an array field becomes a one-element array. */
function wrapSingleValuesOfArrays(shape: Record<string, unknown>, input: Record<string, unknown>): void {
  for (const [key, field] of Object.entries(shape)) {
    const isArray =
      field instanceof ZodArray ||
      (instanceofZodTypeOptional(field as never) && (field as { unwrap(): unknown }).unwrap() instanceof ZodArray);
    if (isArray && input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  }
}

/**
 * The call's description. Its signal is made when something first asks for it (most calls
 * never do: an AbortController and a listener per call would be work for nothing).
 */
function callInfo(type: string, url: URL, reply: FastifyReply): CallInfo {
  let signal: AbortSignal | undefined;
  return {
    isBatchCall: false,
    accept: null,
    calls: [],
    type,
    connectionParams: null,
    get signal() {
      return (signal ??= abortedWhenClientLeaves(reply));
    },
    url,
  };
}

/** A signal aborted when the reply's connection closes before the answer was written (the client went away). */
function abortedWhenClientLeaves(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const leftEarly = () => !response.writableFinished;
  // Asked for after the connection closed: the client has gone already.
  if (response.destroyed) {
    if (leftEarly()) controller.abort();
  } else
    response.once('close', () => {
      if (leftEarly()) controller.abort();
    });
  return controller.signal;
}
