import type { FastifyInstance } from 'fastify';
import { routeLabel, UNMATCHED_ROUTE, type RouteResolver } from '../metrics/service-metrics';

/**
 * One line per answered request, written by us instead of Fastify's default (which logs the
 * full URL). Query strings are never logged: on this service they can carry subject
 * identifiers (tRPC inputs, list filters). The path is logged only for matched routes,
 * whose paths carry ids; anything else (SPA deep links such as `/invite/<token>`, unknown
 * paths a client made up) is logged as `unmatched`.
 */
export function registerRequestLog(app: FastifyInstance, resolveRoute: RouteResolver): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeLabel(request.routeOptions.url, request.originalUrl, resolveRoute);
    const path = route === UNMATCHED_ROUTE ? undefined : (request.originalUrl.split('?')[0] ?? '');
    request.log.info(
      { method: request.method, route, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
    done();
  });
}
