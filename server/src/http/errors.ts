import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_HTTP_STATUS, type ErrorBody, type ErrorCode } from '@shared/errors';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnreachable } from '../db/connections';

const BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
};

export function sendError(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  const body: ErrorBody = { code, message };
  return reply.code(ERROR_HTTP_STATUS[code]).type('application/json').send(body);
}

/**
 * Errors raised by Fastify before a procedure runs (malformed JSON, body too large, wrong
 * content type) get the same `{ code, message }` body as every other error. Anything
 * unexpected is a logged 500 with a generic message, never a stack trace.
 */
export function handleHttpError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 500;
  if (isDatabaseUnreachable(error)) {
    reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    return sendError(reply, 'SERVICE_UNAVAILABLE', 'The database is not reachable at the moment; try again shortly');
  }
  if (status >= 500) {
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'INTERNAL_SERVER_ERROR', 'Internal server error');
  }
  const code = BY_STATUS[status] ?? 'BAD_REQUEST';
  let message = error.message;
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.name === 'SyntaxError' || /JSON/.test(error.message))
    message = 'Request body is not valid JSON';
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = 'Request body is too large';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') message = 'Unsupported content type; send application/json';
  if (status === 429 && reply.getHeader('retry-after') === undefined) reply.header('Retry-After', '1');
  return sendError(reply, code, message);
}
