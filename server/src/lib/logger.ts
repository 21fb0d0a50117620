import pino, { type Logger } from 'pino';

/** Paths that may carry secrets; pino replaces them before a line is written. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-workspace-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.workspaceApiKey',
  '*.token',
  '*.secret',
  '*.secrets',
  '*.apiKey',
];

/**
 * An error as a log line carries it: its kind, message, code and stack (and its cause, the
 * same way). Never the other fields a library adds: PostgreSQL's `detail` and `where`, for
 * one, quote the values of the rows involved, which may be a subject's identifier. `redact`
 * blanks what the caller knows must not be logged (the identifier a step was working on).
 */
export function errorForLog(value: unknown, redact: (text: string) => string = (text) => text): unknown {
  if (!(value instanceof Error)) return value;
  const error = value as Error & { code?: unknown };
  return {
    type: error.constructor?.name ?? error.name,
    message: redact(error.message),
    ...(typeof error.code === 'string' || typeof error.code === 'number' ? { code: error.code } : {}),
    stack: error.stack === undefined ? undefined : redact(error.stack),
    ...(error.cause !== undefined ? { cause: errorForLog(error.cause, redact) } : {}),
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: errorForLog },
      base: { service: 'deletion-service' },
    },
    destination,
  );
}

export type { Logger };
