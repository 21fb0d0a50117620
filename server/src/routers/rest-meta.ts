import type { z } from 'zod';
import type { TokenScope } from '@shared/scopes';
import type { AppMeta } from '../trpc/init';

/** Statuses a public operation may answer besides its success. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;

export interface RestOperation {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: `/${string}`;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** The token scope it needs (also checked by the procedure ladder); none: only a token without limits may call it. */
  scope?: TokenScope;
  /** 200 unless the operation creates something (201). */
  successStatus?: 200 | 201;
  successDescription: string;
  /** A second success the operation may answer instead (a create that finds the thing already there: 200). */
  otherSuccess?: { status: 200; description: string };
  /** The statuses only this operation answers, each with its own description; 401, 403, 429 and 500 are added for all. */
  errors: Partial<Record<ErrorStatus, string>>;
  requestHeaders?: z.ZodObject;
  responseHeaders?: z.ZodObject;
  /** The validation issue the 400's example shows (an empty identifier when not given). */
  badRequestExample?: BadRequestExample;
}

export interface BadRequestExample {
  path: (string | number)[];
  message: string;
}

/** Descriptions every public operation shares. */
const COMMON_ERRORS = (scope: TokenScope | undefined): Partial<Record<ErrorStatus, string>> => ({
  401: 'Missing, invalid, revoked or expired personal access token.',
  403: scope
    ? `The token lacks the "${scope}" scope, or is not allowed to act on the workspace named in the request.`
    : "The token is limited to scopes or workspaces (this operation needs a token without limits), or its user's role is too low.",
  429: 'Too many requests from this token or address; retry after the number of seconds in `Retry-After`.',
  500: 'An internal error; nothing is leaked, and the request can be retried.',
});

/** A POST with a JSON body can also answer these before its procedure runs. */
const BODY_ERRORS: Partial<Record<ErrorStatus, string>> = {
  413: 'The request body is larger than the service accepts.',
  415: 'The request body is not JSON (send `Content-Type: application/json`).',
};

/**
 * The meta of a procedure served on the public REST API: its path, the scope it needs, and
 * every status it can answer with its own description. `openApiExtras` (below) holds what
 * trpc-to-openapi cannot say itself (the success status); the document builder applies it.
 */
export function restMeta(operation: RestOperation): AppMeta {
  const errors = {
    ...(operation.method === 'GET' ? {} : BODY_ERRORS),
    ...COMMON_ERRORS(operation.scope),
    ...operation.errors,
  };
  openApiExtras.set(operation.operationId, {
    successStatus: operation.successStatus ?? 200,
    otherSuccess: operation.otherSuccess,
    errors,
    badRequestExample: operation.badRequestExample,
  });
  return {
    scope: operation.scope,
    openapi: {
      method: operation.method,
      path: operation.path,
      operationId: operation.operationId,
      tags: [operation.tag],
      summary: operation.summary,
      description: operation.description,
      protect: true,
      successDescription: operation.successDescription,
      errorResponses: errors as Record<number, string>,
      ...(operation.requestHeaders ? { requestHeaders: operation.requestHeaders } : {}),
      ...(operation.responseHeaders ? { responseHeaders: operation.responseHeaders } : {}),
    },
  };
}

/** Per operationId, what the document builder adds to trpc-to-openapi's output. */
export const openApiExtras = new Map<
  string,
  {
    successStatus: 200 | 201;
    otherSuccess?: { status: 200; description: string };
    errors: Partial<Record<ErrorStatus, string>>;
    badRequestExample?: BadRequestExample;
  }
>();
