import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { TRPCError } from '@trpc/server';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { appRouter } from '../routers/root';
import { registerCsvDownloadRoutes } from './csv-downloads';
import { registerDownloadRoutes } from './downloads';
import type { ServiceDeps } from '../services/deps';
import { createContextFactory, type Context } from '../trpc/context';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/connections';
import { registerDocsPage } from './docs-page';
import { registerRequestLog } from './request-log';
import { handleHttpError, sendError } from './errors';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  registerInputGuards,
  registerPublicApiRateLimits,
  registerSecurityHeaders,
} from './hardening';
import { certificateJsonSchema } from '../services/certificates/certificate-schema';
import { buildOpenApiDocument, PUBLIC_API_PREFIX } from './openapi';
import { registerHttpMetrics } from '../metrics/http';
import type { RouteResolver } from '../metrics/service-metrics';
import { registerEmptyPostBodies, registerBodyLimits } from './body-limits';
import { registerListBodies } from './list-bodies';
import { createRequestsPage } from './requests-page';
import { registerRestFacade } from './rest-facade';

const CLIENT_DIST = path.resolve(import.meta.dirname, '../../../client/dist');
const CLIENT_SERVER_DIST = path.resolve(import.meta.dirname, '../../../client/dist-server');

const responseMeta = ({ ctx, errors }: { ctx?: Context; errors: TRPCError[] }) => ({
  // An error raised before the context exists (a missing or text/plain content type) has no
  // status in its body, which would leave the answer at 200: it carries its own (415).
  status: errors.length === 0 ? ctx?.response.status : ctx ? undefined : getHTTPStatusCodeFromError(errors[0]!),
  headers: ctx?.response.headers ?? {},
});

function logProcedureError({
  error,
  path: procedure,
  ctx,
}: {
  error: { code: string; cause?: unknown };
  path?: string;
  ctx?: Context;
}) {
  if (error.code === 'INTERNAL_SERVER_ERROR')
    ctx?.log.error({ err: error.cause ?? error, procedure }, 'procedure failed');
}

/** Route labels under the wildcard routes: the REST operation's path template, or the tRPC procedure (batches as one label). */
function routeResolver(restTemplates: string[]): RouteResolver {
  const rest = restTemplates.map((template) => ({
    label: PUBLIC_API_PREFIX + template,
    pattern: new RegExp(
      `^${PUBLIC_API_PREFIX}${template.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`,
    ),
  }));
  const procedures = new Set(Object.keys(appRouter._def.procedures));
  return (path) => {
    if (path.startsWith('/trpc/')) {
      const names = path.slice('/trpc/'.length).split(',');
      if (!names.every((name) => procedures.has(name))) return null;
      return names.length === 1 ? path : '/trpc/(batch)';
    }
    return rest.find((r) => r.pattern.test(path))?.label ?? null;
  };
}

export async function buildApp(deps: ServiceDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as unknown as FastifyBaseLogger,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    // Only trusted proxies (TRUST_PROXY) may set the client address that rate limits count.
    trustProxy: deps.config.trustProxy as boolean | string[],
    // Fastify's own request lines carry the full URL, query string included: see request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    clientErrorHandler,
    frameworkErrors: (error, _request, reply) => frameworkErrorHandler(error, reply),
    // A tRPC batch names its procedures in the path ("/trpc/a.b,c.d,…"): the dashboard's screens
    // batch five or more, longer than Fastify's default 100 characters for a path parameter.
    routerOptions: { maxParamLength: 2_000 },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
  });
  app.setErrorHandler(handleHttpError);
  registerSecurityHeaders(app, deps.config);
  registerInputGuards(app);
  const openApiDocument = buildOpenApiDocument(deps.config.PUBLIC_URL);
  const resolveRoute = routeResolver(Object.keys(openApiDocument.paths ?? {}));
  registerRequestLog(app, resolveRoute);
  registerHttpMetrics(app, {
    token: deps.config.METRICS_PORT === undefined ? deps.config.METRICS_TOKEN : undefined,
    resolveRoute,
    notFound: (reply) => sendError(reply, 'NOT_FOUND', 'No route for GET /metrics'),
  });
  registerPublicApiRateLimits(app, deps.config);
  await app.register(fastifyCookie);
  registerBodyLimits(app, deps.config.BODY_LIMIT_BYTES);
  registerEmptyPostBodies(app);
  registerListBodies(app);

  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    // The dashboard sends identifier searches as POST queries, so no identifier is ever in a URL.
    trpcOptions: {
      router: appRouter,
      createContext: createContextFactory(deps, 'trpc'),
      onError: logProcedureError,
      responseMeta,
      allowMethodOverride: true,
    },
  });
  await registerRestFacade(app, {
    basePath: PUBLIC_API_PREFIX,
    router: appRouter,
    createContext: createContextFactory(deps, 'rest'),
    onError: logProcedureError,
    responseMeta,
  });

  app.get('/api/openapi.json', (_req, reply) => reply.send(openApiDocument));
  app.get('/api/certificate.schema.json', (_req, reply) =>
    reply
      .type('application/schema+json')
      .send({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...certificateJsonSchema }),
  );
  await registerDocsPage(app);
  await (await import('./oauth')).registerOAuthRoutes(app, deps);
  registerDownloadRoutes(app, deps);
  registerCsvDownloadRoutes(app, deps);

  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await deps.prisma.$queryRaw`SELECT 1`;
      return { status: 'ready' };
    } catch {
      reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      return sendError(reply, 'SERVICE_UNAVAILABLE', 'Database is not reachable');
    }
  });

  const hasClient = fs.existsSync(path.join(CLIENT_DIST, 'index.html'));
  if (hasClient) {
    await app.register(fastifyStatic, {
      root: CLIENT_DIST,
      prefix: '/',
      wildcard: false,
      // The build writes brotli and gzip copies of every text asset (client/build/precompress.ts):
      // they are sent by Accept-Encoding, with `Vary: Accept-Encoding`.
      preCompressed: true,
      // Built assets carry a content hash in their name: browsers keep them without asking
      // again. index.html (the SPA's entry, which names them) is always revalidated.
      setHeaders: (reply, filePath) => {
        reply.header(
          'Cache-Control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  const sendRequestsPage = hasClient ? await createRequestsPage(CLIENT_DIST, CLIENT_SERVER_DIST, deps) : null;
  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '';
    if (request.method !== 'GET' || url.startsWith('/api/') || url.startsWith('/trpc/')) {
      return sendError(reply, 'NOT_FOUND', `No route for ${request.method} ${url}`);
    }
    // The Requests page, unfiltered: its first rows rendered on the server, or hints that start its data and chunks at once.
    if (sendRequestsPage && request.url === '/requests') return sendRequestsPage(request, reply);
    // Deep links into the dashboard are answered with the SPA, which routes on the client.
    if (hasClient) return reply.type('text/html').sendFile('index.html');
    return reply
      .type('text/html')
      .send(
        '<!doctype html><title>Deletion Request Service</title><p>The dashboard is not built. Run <code>npm run build:client</code>.</p>',
      );
  });
  return app;
}
