import type { ErrorCode } from '@shared/errors';

/** The one error services throw; the tRPC layer maps `code` to HTTP status once. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: { issues?: unknown[]; retryAfterSeconds?: number },
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
