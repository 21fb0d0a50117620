import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>API reference · Data Deletion Request Service</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true, persistAuthorization: false });`;

/** Interactive API reference at /api/docs, served from the swagger-ui-dist package (no CDN). */
export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  const { absolutePath } = require('swagger-ui-dist') as { absolutePath: () => string };
  await app.register(fastifyStatic, { root: absolutePath(), prefix: '/api/docs/assets/', decorateReply: false });
  app.get('/api/docs', (_req, reply) => reply.type('text/html').send(PAGE));
  app.get('/api/docs/init.js', (_req, reply) => reply.type('application/javascript').send(INIT));
}
