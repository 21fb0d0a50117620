import { destinationMessage, isSuccessStatus, parseRetryAfter, type HttpResponse } from './http-client';
import { PermanentError, TransientError, type DriverContext, type Outcome } from '../types';

/** The response body as JSON, or undefined when it is not JSON. */
export function jsonBody(response: HttpResponse): unknown {
  try {
    return response.json();
  } catch {
    return undefined;
  }
}

/** A string credential of the account, or a PermanentError naming what is missing. */
export function credential(ctx: Pick<DriverContext, 'secrets'>, ...keys: string[]): string {
  for (const key of keys) {
    const value = ctx.secrets?.[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  throw new PermanentError(`The account has no ${keys.join(' or ')}`);
}

/**
 * When a rate-limit window resets, from an `X-RateLimit-Reset` header, in ms from `now`. Vendors
 * write it as epoch milliseconds, epoch seconds, or seconds to wait; the size tells which.
 */
export function parseRateLimitReset(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const n = Number(value.trim());
  if (!Number.isFinite(n) || n < 0) return undefined;
  if (n > 1e12) return Math.max(0, n - now);
  if (n > 1e9) return Math.max(0, n * 1000 - now);
  return n * 1000;
}

/** How long a 429 asks us to wait (Retry-After, else X-RateLimit-Reset), or `fallbackMs`. */
export function retryAfterMs(response: HttpResponse, fallbackMs: number, now = Date.now()): number {
  return (
    parseRetryAfter(response.headers['retry-after'], now) ??
    parseRateLimitReset(response.headers['x-ratelimit-reset'], now) ??
    fallbackMs
  );
}

/**
 * A vendor's rate limit answered a deletion call: the request waits its turn (PENDING, no
 * attempt used) instead of failing, since a 429 says "later", not "never".
 */
export function queuedByRateLimit(vendor: string, response: HttpResponse, now: Date, fallbackMs = 1_000): Outcome {
  const waitMs = retryAfterMs(response, fallbackMs, now.getTime());
  return {
    kind: 'deferred',
    until: new Date(now.getTime() + waitMs),
    message: `${vendor} rate limit (HTTP 429); queued for ${Math.ceil(waitMs / 1000)} s`,
  };
}

/** A 429 while checking status or canceling: transient, retried after Retry-After. */
export function rateLimitError(vendor: string, response: HttpResponse, fallbackMs = 1_000): TransientError {
  return new TransientError(
    `${vendor} rate limit: ${destinationMessage(response)}`,
    retryAfterMs(response, fallbackMs),
  );
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The `access_token` of a token endpoint's answer, or the unsuccessful answer itself. A 2xx
 * without a token reads as a refusal (a 401 saying so): nothing can be sent without one.
 */
export function accessTokenOf(response: HttpResponse, vendor: string): string | HttpResponse {
  if (!isSuccessStatus(response.status)) return response;
  const token = (jsonBody(response) as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token === 'string' && token.length > 0) return token;
  return {
    status: 401,
    headers: {},
    text: `${vendor} answered the token request without an access_token`,
    json: () => undefined,
  };
}
