import { Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { PUBLIC_API_PREFIX } from './openapi';

/** Room for 1,000 identifiers of up to 512 characters each, JSON-encoded. */
export const LARGE_BODY_LIMIT_BYTES = 2 * 1024 * 1024;
/** Public paths that take more than BODY_LIMIT_BYTES (the erasure check's batch form). */
const LARGE_BODY_PATHS = new Set([`${PUBLIC_API_PREFIX}/erasure-checks/batch`]);

function tooLarge(): Error {
  return Object.assign(new Error('Request body is too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
}

/**
 * The public API is one route (trpc-to-openapi registers a wildcard), so its body limit is
 * the largest any path needs; this hook holds every other path to BODY_LIMIT_BYTES, by the
 * announced length and by counting what arrives (chunked bodies announce none).
 */
export function registerPublicBodyLimits(app: FastifyInstance, bodyLimit: number): void {
  app.addHook('onRoute', (route) => {
    if (route.url === `${PUBLIC_API_PREFIX}/*`) route.bodyLimit = Math.max(bodyLimit, LARGE_BODY_LIMIT_BYTES);
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    const path = request.originalUrl.split('?')[0] ?? '';
    if (!path.startsWith(`${PUBLIC_API_PREFIX}/`) || LARGE_BODY_PATHS.has(path)) return payload;
    const announced = Number(request.headers['content-length']);
    if (Number.isFinite(announced) && announced > bodyLimit) throw tooLarge();
    let received = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          received += chunk.length;
          callback(received > bodyLimit ? tooLarge() : null, chunk);
        },
      }),
    );
  });
}

/**
 * A public POST without a body and without a content type (`curl -X POST` of a cancel or a
 * check-status, whose bodies are optional) is read as `{}` instead of a 415.
 */
export function registerEmptyPostBodies(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'POST' || !request.originalUrl.startsWith(`${PUBLIC_API_PREFIX}/`)) return;
    const headers = request.headers;
    const empty = (headers['content-length'] === undefined || headers['content-length'] === '0') && headers['transfer-encoding'] === undefined;
    if (headers['content-type'] === undefined && empty) {
      headers['content-type'] = 'application/json';
      request.body = {};
    }
  });
}
