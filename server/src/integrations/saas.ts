import { isSuccessStatus, outcomeForHttpError, truncate, type HttpResponse } from './runtime/http-client';
import { TransientError, type Outcome } from './types';
import { jsonBody, retryAfterMs } from './runtime/vendor-http';

/** How one SaaS vendor words its errors and asks for patience. */
export interface VendorStyle {
  vendor: string;
  /** The vendor's own message in an error body (each vendor nests it differently). */
  message(body: unknown): string | undefined;
  /** The wait a 429 asks for, when the vendor does not use Retry-After / X-RateLimit-Reset. */
  waitMs?(response: HttpResponse, now: number): number | undefined;
  fallbackWaitMs?: number;
}

/** "HTTP 401: <the vendor's words>", short. */
export function vendorMessage(style: VendorStyle, response: HttpResponse): string {
  const detail = style.message(jsonBody(response)) ?? response.text.trim();
  return truncate(`HTTP ${response.status}${detail ? `: ${detail}` : ''}`, 300);
}

export function waitFor(style: VendorStyle, response: HttpResponse, now: number): number {
  return style.waitMs?.(response, now) ?? retryAfterMs(response, style.fallbackWaitMs ?? 1_000, now);
}

/**
 * An unsuccessful answer to a deletion step: 401/403 fail at once with the vendor's message
 * (retrying will not fix credentials), 429 waits as long as the vendor asks without using an
 * attempt, 5xx retries, other 4xx fail with the vendor's message.
 */
export function deletionFailure(style: VendorStyle, response: HttpResponse, now: Date): Outcome {
  if (response.status === 429) {
    const waitMs = waitFor(style, response, now.getTime());
    return {
      kind: 'deferred',
      until: new Date(now.getTime() + waitMs),
      message: `${style.vendor} rate limit (HTTP 429); queued for ${Math.ceil(waitMs / 1000)} s`,
    };
  }
  if (response.status === 401 || response.status === 403)
    return { kind: 'failed', reason: `${style.vendor} refused the credentials: ${vendorMessage(style, response)}` };
  const outcome = outcomeForHttpError(response);
  return outcome.kind === 'retry'
    ? { ...outcome, reason: vendorMessage(style, response) }
    : { kind: 'failed', reason: vendorMessage(style, response) };
}

/** The same for a status check: a 429 throws (the engine polls again after the wait). */
export function statusFailure(style: VendorStyle, response: HttpResponse, now = new Date()): Outcome {
  if (response.status === 429)
    throw new TransientError(
      `${style.vendor} rate limit: ${vendorMessage(style, response)}`,
      waitFor(style, response, now.getTime()),
    );
  return deletionFailure(style, response, now);
}

/** A connection test's verdict from one read-only call. */
export function connectionVerdict(
  style: VendorStyle,
  response: HttpResponse,
  okMessage: string,
): { ok: boolean; message: string } {
  if (isSuccessStatus(response.status)) return { ok: true, message: okMessage };
  return { ok: false, message: `${style.vendor}: ${vendorMessage(style, response)}` };
}

export async function testWith(
  style: VendorStyle,
  call: () => Promise<HttpResponse>,
  okMessage: string,
): Promise<{ ok: boolean; message: string }> {
  try {
    return connectionVerdict(style, await call(), okMessage);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** A string field of an object, if it is one. */
export const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;
