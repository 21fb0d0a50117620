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

/** One page of a vendor's search: the ids on it and the next page's cursor (none: it was the last), or why it failed. */
export type SearchPage<Cursor> = { ids: string[]; next?: Cursor } | { failure: Outcome };

/**
 * Every id a paged search finds, each once, added to `ids`: page after page, at most `maxPages`.
 * A search with more pages than that fails with `tooMany` rather than delete part of what matches.
 */
export async function collectPages<Cursor>(
  maxPages: number,
  tooMany: string,
  page: (cursor: Cursor | undefined) => Promise<SearchPage<Cursor>>,
  ids: string[] = [],
): Promise<string[] | Outcome> {
  let cursor: Cursor | undefined;
  for (let read = 1; ; read++) {
    const result = await page(cursor);
    if ('failure' in result) return result.failure;
    for (const id of result.ids) if (!ids.includes(id)) ids.push(id);
    if (result.next === undefined) return ids;
    if (read === maxPages) return { kind: 'failed', reason: tooMany };
    cursor = result.next;
  }
}

/**
 * Deletes each record, then fetches each again: the vendor's 404 is the proof. A record whose
 * delete answers 404 was already gone and is left out of `deleted`; one still returned after
 * its delete is a retry (the vendor may be catching up); any other answer is the vendor's failure.
 */
export async function deleteThenConfirmGone(
  style: VendorStyle,
  now: Date,
  ids: readonly string[],
  calls: { del(id: string): Promise<HttpResponse>; get(id: string): Promise<HttpResponse>; noun: string },
): Promise<{ deleted: string[] } | { outcome: Outcome }> {
  const deleted: string[] = [];
  for (const id of ids) {
    const response = await calls.del(id);
    if (response.status === 404) continue;
    if (!isSuccessStatus(response.status)) return { outcome: deletionFailure(style, response, now) };
    deleted.push(id);
  }
  for (const id of deleted) {
    const after = await calls.get(id);
    if (isSuccessStatus(after.status))
      return {
        outcome: { kind: 'retry', reason: `${style.vendor} still returns ${calls.noun} ${id} after the delete` },
      };
    if (after.status !== 404) return { outcome: deletionFailure(style, after, now) };
  }
  return { deleted };
}
