import http from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONTENT_TYPE } from './registry';
import { httpDuration, httpRequests, registry, routeLabel, type RouteResolver } from './service-metrics';

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Counts and times every answered request by route. /metrics on the API port exists only
 * when no METRICS_PORT is set and a METRICS_TOKEN is: it then needs that bearer token, and
 * answers 404 otherwise (the same as any unknown path, so its presence is not advertised).
 */
export function registerHttpMetrics(
  app: FastifyInstance,
  options: {
    token?: string;
    resolveRoute: RouteResolver;
    /** The app's answer for an unknown path. */ notFound: (reply: FastifyReply) => FastifyReply;
  },
): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeLabel(request.routeOptions.url, request.originalUrl, options.resolveRoute);
    httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
  const token = options.token;
  if (token) {
    app.get('/metrics', async (request, reply) => {
      // Without the token: the answer of any unknown path.
      if (!bearerMatches(request.headers.authorization, token)) return options.notFound(reply);
      return reply
        .type(CONTENT_TYPE)
        .header('cache-control', 'no-store')
        .send(await registry.render());
    });
  }
}

/**
 * A plain HTTP listener for /metrics and /healthz, for worker processes (which serve no
 * API) and for deployments that keep metrics off the public port.
 */
export async function startMetricsServer(
  port: number,
  host: string,
  healthy: () => boolean,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      registry.render().then(
        (text) => {
          res.writeHead(200, { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' });
          res.end(text);
        },
        () => {
          res.writeHead(500).end();
        },
      );
    } else if (req.method === 'GET' && path === '/healthz') {
      const ok = healthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ok ? 'ok' : 'stopping' }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"NOT_FOUND"}');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as { port: number };
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
