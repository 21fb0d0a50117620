import type { HttpResponse } from '../runtime/http-client';
import { jsonBody, retryAfterMs } from '../runtime/vendor-http';

/** The largest `errors[].data.msBeforeNext` of a 429 body: "A number of milliseconds before the rate limit is lifted". */
function msBeforeNext(body: unknown): number | undefined {
  const errors = (body as { errors?: { data?: { msBeforeNext?: unknown } }[] } | undefined)?.errors;
  const waits = (Array.isArray(errors) ? errors : [])
    .map((e) => e?.data?.msBeforeNext)
    .filter((ms): ms is number => typeof ms === 'number' && Number.isFinite(ms) && ms >= 0);
  return waits.length ? Math.max(...waits) : undefined;
}

/** X-RateLimit-Reset is "a timestamp, in RFC 5322 format" (a date, not an epoch number). */
function untilReset(value: string | undefined, now: number): number | undefined {
  if (!value || /^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long a Segment 429 asks us to wait: the later of the body's msBeforeNext and the
 * X-RateLimit-Reset date, as Segment documents them; otherwise Retry-After or one second.
 */
export function segmentWaitMs(response: HttpResponse, now = Date.now()): number {
  const signals = [msBeforeNext(jsonBody(response)), untilReset(response.headers['x-ratelimit-reset'], now)].filter(
    (ms): ms is number => ms !== undefined,
  );
  return signals.length ? Math.max(...signals) : retryAfterMs(response, 1_000, now);
}
