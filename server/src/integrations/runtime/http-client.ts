import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { PermanentError, TransientError, type Exchange, type Outcome } from '../types';
import { createRedactor } from './redaction';

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  json(): unknown;
}

export interface HttpClient {
  /** Throws TransientError on network errors and timeouts; any HTTP status is returned. */
  request(request: HttpRequest): Promise<HttpResponse>;
}

export interface HttpClientOptions {
  trail: Exchange[];
  /** Secret values to blank out of the recorded trail. */
  secrets: string[];
  /** Resolves host names; the SSRF guard checks each resolved address here. */
  lookup?: LookupFunction;
  /** Checked before each call (scheme, host, allowlist). */
  checkUrl?: (url: URL) => Promise<void>;
  /** Waits for each call's turn under the destination's rate (see `callPacer`). */
  pace?: () => Promise<void>;
  defaultTimeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 1_048_576;
/** A recorded body keeps this much (about 2 KB of text) and says how long it was. */
const RECORDED_BODY_CHARS = 2_048;
const SENSITIVE_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token)$/i;
const USER_AGENT = 'deletion-request-service/1.0';
/**
 * What a destination's answer says that is evidence or explains the next step: where the work
 * lives (location), when to come back (retry-after), the destination's own id for the call
 * (request, trace, correlation ids), the body's type unless it is JSON, and on a refusal its
 * rate limits. The rest (caching, security policies, servers, dates, connection handling) is
 * the same on every answer and is not kept.
 */
const EVIDENCE_HEADERS =
  /^(location|retry-after|content-location|x-amzn-requestid|cf-ray)$|(request|trace|correlation|transaction)[-_]?id$/i;
const RATE_LIMIT_HEADERS = /ratelimit|rate-limit/i;

/** At most `max` UTF-16 units, never half of a character outside the Basic Multilingual Plane (an emoji). */
export function truncate(text: string, max = RECORDED_BODY_CHARS): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}… [${text.length - end} more characters]`;
}

/** A recorded body: the first 2,048 characters, and the length of the whole when it was longer. */
function recordedBody(text: string): string {
  if (text.length <= RECORDED_BODY_CHARS) return text;
  return `${truncate(text).replace(/… \[\d+ more characters\]$/, '')}… [${text.length} characters in all; the first ${RECORDED_BODY_CHARS} recorded]`;
}

function redactHeaders(headers: Record<string, string>, redact: (t: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    out[name] = SENSITIVE_HEADERS.test(name) ? '[redacted]' : redact(value);
  return out;
}

/** The headers sent, without the two every call carries unless configured otherwise (ours and JSON's). */
function sentHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'user-agent' && value === USER_AGENT) continue;
    if (lower === 'content-type' && value === 'application/json') continue;
    out[name] = value;
  }
  return out;
}

/** The answer's headers that are evidence (see EVIDENCE_HEADERS). */
function answerHeaders(status: number, headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const keep =
      EVIDENCE_HEADERS.test(name) ||
      (name.toLowerCase() === 'content-type' && !/^application\/json\b/i.test(value)) ||
      (!isSuccessStatus(status) && RATE_LIMIT_HEADERS.test(name));
    if (keep) out[name] = value;
  }
  return out;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const redact = createRedactor(options.secrets);
  return {
    async request(req) {
      const url = new URL(req.url);
      await options.pace?.();
      const started = Date.now();
      const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...(req.headers ?? {}) };
      if (req.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
      const exchange: Extract<Exchange, { kind: 'http' }> = {
        kind: 'http',
        request: {
          method: req.method,
          url: redact(url.toString()),
          headers: redactHeaders(sentHeaders(headers), redact),
          ...(req.body !== undefined ? { body: recordedBody(redact(req.body)) } : {}),
        },
        durationMs: 0,
      };
      options.trail.push(exchange);
      try {
        if (options.checkUrl) await options.checkUrl(url);
        const response = await send(url, req, headers, options);
        exchange.response = {
          status: response.status,
          headers: redactHeaders(answerHeaders(response.status, response.headers), redact),
          body: recordedBody(redact(response.text)),
        };
        return response;
      } catch (error) {
        exchange.error = redact((error as Error).message);
        if (error instanceof TransientError) throw error;
        // A name that did not resolve (at the SSRF check, before connecting) may resolve later.
        if ((error as Error).name === 'HostUnresolvedError')
          throw new TransientError(`${req.method} ${url.host}: ${redact((error as Error).message)}`);
        // The SSRF policy refused the address: retrying will not change that.
        if (
          (error as Error).name === 'OutboundBlockedError' ||
          (error as NodeJS.ErrnoException).code === 'ERR_OUTBOUND_BLOCKED'
        ) {
          throw new PermanentError(redact((error as Error).message));
        }
        throw new TransientError(`${req.method} ${url.host}: ${redact((error as Error).message)}`);
      } finally {
        exchange.durationMs = Date.now() - started;
      }
    },
  };
}

// Connections to destinations are reused between calls (each was checked when it was opened).
// No cap on sockets per origin: a worker's concurrency bounds its calls, and a cap here would
// silently queue calls that WORKER_CONCURRENCY allows.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: Infinity }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: Infinity }),
};

/** Marks an error as a reused keep-alive connection the destination had closed before the call. */
const STALE_SOCKET = Symbol('staleSocket');

/**
 * One call. A reused keep-alive connection may have been closed by the destination while it
 * sat idle (its keep-alive timeout ended as the call started): the call then fails with
 * ECONNRESET or EPIPE before any answer, the destination never having read it. That call is
 * sent once more, on a new connection, as Node's documentation advises (`request.reusedSocket`),
 * rather than costing the step an attempt.
 */
async function send(
  url: URL,
  req: HttpRequest,
  headers: Record<string, string>,
  options: HttpClientOptions,
): Promise<HttpResponse> {
  try {
    return await sendOnce(url, req, headers, options);
  } catch (error) {
    if ((error as { [STALE_SOCKET]?: boolean })[STALE_SOCKET]) return sendOnce(url, req, headers, options);
    throw error;
  }
}

function sendOnce(
  url: URL,
  req: HttpRequest,
  headers: Record<string, string>,
  options: HttpClientOptions,
): Promise<HttpResponse> {
  const transport = url.protocol === 'https:' ? https : http;
  const agent = agents[url.protocol as keyof typeof agents];
  const timeoutMs = req.timeoutMs ?? options.defaultTimeoutMs ?? 15_000;
  return new Promise((resolve: (response: HttpResponse) => void, fail: (error: unknown) => void) => {
    // The socket's `timeout` only notices silence; this bounds the whole call, so a destination
    // that answers a byte at a time cannot hold a worker (and its lease) for days.
    const deadline = setTimeout(
      () => request.destroy(new TransientError(`no complete answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const reject = (error: unknown) => {
      clearTimeout(deadline);
      fail(error);
    };
    let answered = false;
    const request = transport.request(
      url,
      { method: req.method, headers, timeout: timeoutMs, agent, ...(options.lookup ? { lookup: options.lookup } : {}) },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            request.destroy(new Error(`response larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) responseHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
          clearTimeout(deadline);
          resolve({
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            text,
            json() {
              return JSON.parse(text);
            },
          });
        });
        res.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new TransientError(`no response within ${timeoutMs} ms`)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (request.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
        Object.assign(error, { [STALE_SOCKET]: true });
      reject(error);
    });
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}

/** Retry-After in seconds or as an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The destination's own words for an error, short enough for a status line. */
export function destinationMessage(response: HttpResponse): string {
  let detail = response.text.trim();
  try {
    const body = response.json() as Record<string, unknown>;
    const candidate =
      body.error_description ??
      body.message ??
      body.error ??
      body.detail ??
      (body.errors as unknown[] | undefined)?.[0];
    if (candidate !== undefined) detail = typeof candidate === 'string' ? candidate : JSON.stringify(candidate);
  } catch {
    // not JSON: keep the text
  }
  return truncate(`HTTP ${response.status}${detail ? `: ${detail}` : ''}`, 300);
}

/**
 * The engine's reading of an unsuccessful HTTP status: 408, 429 and 5xx are transient
 * (429 honours Retry-After); every other 4xx is permanent with the destination's message.
 */
export function outcomeForHttpError(response: HttpResponse): Outcome {
  if (response.status === 429 || response.status === 408 || response.status >= 500) {
    return {
      kind: 'retry',
      reason: destinationMessage(response),
      retryAfterMs: parseRetryAfter(response.headers['retry-after']),
    };
  }
  return { kind: 'failed', reason: destinationMessage(response) };
}

export const isSuccessStatus = (status: number) => status >= 200 && status < 300;
