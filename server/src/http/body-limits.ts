import { Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { CSV_IMPORT_MAX_BYTES } from '@shared/schemas/csv-import';
import { PUBLIC_API_PREFIX } from './openapi';

/** Room for 1,000 identifiers of up to 512 characters each, JSON-encoded. */
export const LARGE_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * A CSV upload travels as a JSON string: quotes and line breaks take two bytes each there, so
 * the body may be up to twice the CSV's own limit (which the import then checks on the text,
 * with its own 413 naming the file's limit), plus room for the workspace and batch key.
 */
export const CSV_IMPORT_BODY_LIMIT_BYTES = 2 * CSV_IMPORT_MAX_BYTES + 4096;

/**
 * A manual task's answer carries its evidence file (up to 10 MB) base64-encoded; the body may be
 * larger, so that a file just over 10 MB meets the answer's own 413 naming the file's limit.
 */
const TASK_ANSWER_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
const TASK_ANSWER_PATH = new RegExp(`^${PUBLIC_API_PREFIX}/manual-tasks/[^/]+/answer$`);

/** Public paths that take more than BODY_LIMIT_BYTES: the erasure check's batch form and the CSV import. */
const PUBLIC_PATH_LIMITS = new Map([
  [`${PUBLIC_API_PREFIX}/erasure-checks/batch`, LARGE_BODY_LIMIT_BYTES],
  [`${PUBLIC_API_PREFIX}/deletion-requests/import`, CSV_IMPORT_BODY_LIMIT_BYTES],
]);
/** The dashboard's procedures that take more than BODY_LIMIT_BYTES: the CSV import. */
const TRPC_PROCEDURE_LIMITS = new Map([
  ['deletionRequests.importCsv', CSV_IMPORT_BODY_LIMIT_BYTES],
  ['manualTasks.answer', TASK_ANSWER_BODY_LIMIT_BYTES],
  ['manualTasks.answerOnTask', TASK_ANSWER_BODY_LIMIT_BYTES],
]);

const LARGEST_LIMIT = Math.max(
  ...PUBLIC_PATH_LIMITS.values(),
  ...TRPC_PROCEDURE_LIMITS.values(),
  TASK_ANSWER_BODY_LIMIT_BYTES,
);

function tooLarge(): Error {
  return Object.assign(new Error('Request body is too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
}

/** The body limit of one request's path, or undefined for paths that keep Fastify's own (BODY_LIMIT_BYTES). */
function limitOf(path: string, bodyLimit: number): number | undefined {
  if (TASK_ANSWER_PATH.test(path)) return Math.max(bodyLimit, TASK_ANSWER_BODY_LIMIT_BYTES);
  if (path.startsWith(`${PUBLIC_API_PREFIX}/`)) return Math.max(bodyLimit, PUBLIC_PATH_LIMITS.get(path) ?? 0);
  if (path.startsWith('/trpc/')) {
    // A batch (`/trpc/a,b`) may carry a CSV import: each procedure's input schema bounds its own part.
    const names = path.slice('/trpc/'.length).split(',');
    return Math.max(bodyLimit, ...names.map((name) => TRPC_PROCEDURE_LIMITS.get(name) ?? 0));
  }
  return undefined;
}

/**
 * The public API is one route (trpc-to-openapi registers a wildcard) and so is the dashboard's
 * tRPC endpoint, so their route limit is the largest any path needs; this hook holds each path
 * to its own limit (BODY_LIMIT_BYTES unless listed above), by the announced length and by
 * counting what arrives (chunked bodies announce none).
 */
export function registerBodyLimits(app: FastifyInstance, bodyLimit: number): void {
  app.addHook('onRoute', (route) => {
    if (route.url === `${PUBLIC_API_PREFIX}/*` || route.url === '/trpc/:path')
      route.bodyLimit = Math.max(bodyLimit, LARGEST_LIMIT);
  });
  app.addHook('preParsing', async (request, reply, payload) => {
    const limit = limitOf(request.originalUrl.split('?')[0] ?? '', bodyLimit);
    if (limit === undefined || limit >= LARGEST_LIMIT) return payload;
    const announced = Number(request.headers['content-length']);
    if (Number.isFinite(announced) && announced > limit) throw tooLarge();
    // An announced length is all Node's parser lets through: the body is left as it is, so an
    // answer sent before reading it (a 415) lets Node discard the rest and keep the connection.
    if (request.headers['content-length'] !== undefined && Number.isFinite(announced)) return payload;
    let received = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(received > limit ? tooLarge() : null, chunk);
      },
    });
    // Answered without reading the body: what is left of it is read and discarded, never left stuck in the pipe.
    reply.raw.once('finish', () => {
      payload.unpipe(counted);
      payload.resume();
    });
    return payload.pipe(counted);
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
    const empty =
      (headers['content-length'] === undefined || headers['content-length'] === '0') &&
      headers['transfer-encoding'] === undefined;
    if (headers['content-type'] === undefined && empty) {
      headers['content-type'] = 'application/json';
      request.body = {};
    }
  });
}
