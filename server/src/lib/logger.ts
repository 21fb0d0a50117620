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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'deletion-service' } },
    destination,
  );
}

export type { Logger };
