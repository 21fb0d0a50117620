import type { TRPCClientError } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';

/**
 * A failed call made without the tRPC client (lib/public-call.ts): the server's code name,
 * message and issues, as the tRPC client would report them.
 */
export class ProcedureCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly issues: unknown[] = [],
  ) {
    super(message);
    this.name = 'ProcedureCallError';
  }
}

/** By name, not `instanceof`: the error-free first load (sign-in) does not carry the tRPC client's code. */
function isTrpcClientError(error: unknown): error is TRPCClientError<AnyRouter> {
  return error instanceof Error && error.name === 'TRPCClientError';
}

export interface ServerIssue {
  path: (string | number)[];
  message: string;
}

export interface DisplayError {
  /** tRPC error name such as NOT_FOUND, or NETWORK when the server could not be reached. */
  code: string;
  message: string;
  /** Messages by dotted field path ("name", "filter.createdTo"). */
  fieldErrors: Record<string, string>;
}

function isIssue(value: unknown): value is ServerIssue {
  return (
    !!value &&
    typeof value === 'object' &&
    Array.isArray((value as ServerIssue).path) &&
    typeof (value as ServerIssue).message === 'string'
  );
}

/** First message per field path; `stripPrefix` drops a wrapping object key such as "filter". */
export function issuesToFieldErrors(issues: unknown[], stripPrefix?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    if (!isIssue(issue)) continue;
    let path = issue.path.map(String);
    if (stripPrefix && path[0] === stripPrefix) path = path.slice(1);
    const key = path.join('.') || '_form';
    out[key] ??= issue.message;
  }
  return out;
}

/** What a screen shows for any failed call: the server's own message and per-field issues. */
export function toDisplayError(error: unknown, stripPrefix?: string): DisplayError {
  if (error instanceof ProcedureCallError) {
    return { code: error.code, message: error.message, fieldErrors: issuesToFieldErrors(error.issues, stripPrefix) };
  }
  if (isTrpcClientError(error)) {
    const shape = (error.shape ?? {}) as { issues?: unknown[]; data?: { code?: string } };
    const code = shape.data?.code ?? (error.data as { code?: string } | undefined)?.code;
    if (!code)
      return {
        code: 'NETWORK',
        message: 'The server could not be reached. Check your connection and try again.',
        fieldErrors: {},
      };
    const fieldErrors = Array.isArray(shape.issues) ? issuesToFieldErrors(shape.issues, stripPrefix) : {};
    return { code, message: error.message, fieldErrors };
  }
  return { code: 'UNKNOWN', message: error instanceof Error ? error.message : 'Something went wrong', fieldErrors: {} };
}

export function errorCode(error: unknown): string | undefined {
  return error ? toDisplayError(error).code : undefined;
}
