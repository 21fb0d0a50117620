import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { CONTENT_TYPE } from './registry';
import { httpDuration, httpRequests, registry, routeLabel } from './service-metrics';

/** Counts and times every answered request by route; serves /metrics unless it lives on METRICS_PORT. */
export function registerHttpMetrics(app: FastifyInstance, options: { serveEndpoint: boolean }): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeLabel(request.routeOptions.url, request.originalUrl, reply.statusCode);
    httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
  if (options.serveEndpoint) {
    app.get('/metrics', async (_request, reply) => reply.type(CONTENT_TYPE).header('cache-control', 'no-store').send(await registry.render()));
  }
}

/**
 * A plain HTTP listener for /metrics and /healthz, for worker processes (which serve no
 * API) and for deployments that keep metrics off the public port.
 */
export async function startMetricsServer(port: number, host: string, healthy: () => boolean): Promise<{ port: number; close(): Promise<void> }> {
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
