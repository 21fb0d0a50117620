import type { HttpResponse } from '../integrations/runtime/http-client';
import { TransientError } from '../integrations/types';
import { LookupError } from './errors';

/** A vendor's unsuccessful answer: 429 and 5xx are transient (with the wait the vendor asked for), any other status fails the lookup. */
export function answerFailure(vendor: string, response: HttpResponse, waitMs: number | undefined): LookupError {
  const transient = response.status === 429 || response.status >= 500;
  return new LookupError(`${vendor} lookup: answered HTTP ${response.status}`, {
    transient,
    ...(transient && waitMs !== undefined ? { retryAfterMs: waitMs } : {}),
  });
}

/** A connector client that threw (the network, a refused token): its words with identifiers and secrets blanked. */
export function thrownFailure(vendor: string, error: unknown, redact: (text: string) => string): LookupError {
  const transient = error instanceof TransientError;
  return new LookupError(`${vendor} lookup: ${redact((error as Error).message)}`, {
    transient,
    ...(transient && error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  });
}
