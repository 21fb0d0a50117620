import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import { clientAddressKey, rateLimitersFor, secretKey, type RateDecision } from '../lib/rate-limit';
import { findInputProblem, jsonNestsDeeperThan, MAX_INPUT_DEPTH } from '../lib/input-guard';
import { isWellFormedToken } from '../lib/tokens';
import { sendError } from './errors';
import { PUBLIC_API_PREFIX } from './openapi';

/**
 * Content-Security-Policy of the dashboard (a Vite production build: module scripts and
 * stylesheets from /assets, no inline script or style element; React's `style` props are
 * set through the CSSOM, which style-src does not govern).
 */
export function dashboardCsp(secure: boolean, inline: { styles?: string[]; scripts?: string[] } = {}): string {
  const allowing = (directive: string, hashes: string[] = []) =>
    [directive, ...hashes.map((hash) => `'${hash}'`)].join(' ');
  return [
    "default-src 'self'",
    allowing("script-src 'self'", inline.scripts),
    allowing("style-src 'self'", inline.styles),
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(secure ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/** The /api/docs page: Swagger UI from local assets; "Try it out" calls the public API at PUBLIC_URL. */
export function docsCsp(publicOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${publicOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Everything that is not an HTML page (JSON, scripts, images) may not act as a document. */
const RESOURCE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Security headers on every response; the page CSPs on HTML, a deny-all CSP on the rest. */
export function registerSecurityHeaders(app: FastifyInstance, config: Pick<Config, 'PUBLIC_URL'>): void {
  const secure = config.PUBLIC_URL.startsWith('https://');
  const dashboard = dashboardCsp(secure);
  const docs = docsCsp(new URL(config.PUBLIC_URL).origin);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    reply.header('Cross-Origin-Resource-Policy', 'same-origin');
    reply.header(
      'Permissions-Policy',
      'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()',
    );
    reply.header('X-Permitted-Cross-Domain-Policies', 'none');
    if (secure) reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    let type = String(reply.getHeader('content-type') ?? '');
    // Pages say their encoding: a browser given none guesses it from the first bytes it reads.
    if (/^text\/html\s*$/i.test(type)) reply.header('Content-Type', (type = 'text/html; charset=utf-8'));
    // originalUrl: the path as the client asked for it.
    const url = request.originalUrl;
    // A 304 has no body and no type: the browser keeps the cached page and merges this answer's
    // headers into it, so a deny-all CSP here would blank the dashboard on a revalidated reload.
    if (reply.statusCode === 304) reply.removeHeader('Content-Security-Policy');
    else if (type.startsWith('text/html')) {
      // A page that set its own (the Requests page allows its one inline stylesheet by hash) keeps it.
      if (!reply.getHeader('content-security-policy'))
        reply.header('Content-Security-Policy', url.startsWith('/api/docs') ? docs : dashboard);
    } else reply.header('Content-Security-Policy', RESOURCE_CSP);
    // API answers carry personal data and secrets: never stored by a browser or proxy cache.
    if ((url.startsWith('/api/public/') || url.startsWith('/trpc/')) && !reply.getHeader('cache-control'))
      reply.header('Cache-Control', 'no-store');
    return payload;
  });
}

function tooManyRequests(reply: FastifyReply, decision: RateDecision, what: string) {
  reply.header('Retry-After', String(decision.retryAfterSeconds));
  return sendError(
    reply,
    'TOO_MANY_REQUESTS',
    `Too many requests ${what}; retry after ${decision.retryAfterSeconds} second(s)`,
  );
}

/**
 * Public API limits per client address and per personal access token, checked before the
 * body is read and before any database work. Only well-formed tokens get a bucket, so
 * random keys cannot flood the table (they still count against the address).
 */
export function registerPublicApiRateLimits(app: FastifyInstance, config: Config): void {
  const limiters = rateLimitersFor(config);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.originalUrl.startsWith(PUBLIC_API_PREFIX + '/')) return;
    const byIp = limiters.apiPerIp.take(clientAddressKey(request.ip));
    if (!byIp.allowed) return tooManyRequests(reply, byIp, 'from this address');
    const header = request.headers['x-api-key'];
    const token = typeof header === 'string' ? header.trim() : '';
    if (token && isWellFormedToken('personalAccessToken', token)) {
      const byToken = limiters.apiPerToken.take(secretKey(token));
      if (!byToken.allowed) return tooManyRequests(reply, byToken, 'for this token');
      if (byToken.limit) {
        reply.header('RateLimit-Limit', String(byToken.limit));
        reply.header('RateLimit-Remaining', String(byToken.remaining));
      }
    }
  });
}

/**
 * Requests Node's HTTP parser refuses (oversized headers or URL, malformed request line)
 * get the same `{ code, message }` body as every other error instead of Fastify's default.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({
    code: 'BAD_REQUEST',
    message: tooLarge ? 'Request headers or URL are too large' : 'Malformed HTTP request',
  });
  // The answer to a HEAD request has the headers of the GET answer and no body.
  const rawPacket = (error as { rawPacket?: unknown }).rawPacket;
  const head = Buffer.isBuffer(rawPacket) && rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}

/**
 * Every route's input, before any handler: JSON bodies nested deeper than MAX_INPUT_DEPTH
 * are refused before parsing, and query strings, path parameters and bodies with NUL or
 * lone surrogates get 400 (tRPC checks its procedures' raw input itself, see `trpc/init.ts`).
 * The dashboard's tRPC client never streams; a streamed answer would report errors under
 * HTTP 200, so the stream header is ignored.
 */
export function registerInputGuards(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonNestsDeeperThan(String(body))) {
      const error = Object.assign(new Error(`Request body is nested too deeply (at most ${MAX_INPUT_DEPTH} levels)`), {
        statusCode: 400,
      });
      return done(error, undefined);
    }
    return parseJson(request, String(body), done);
  });
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/trpc/')) delete request.headers['trpc-accept'];
  });
  app.addHook('preValidation', async (request, reply) => {
    if (request.url.startsWith('/trpc/')) return;
    const problem = findInputProblem({ query: request.query, params: request.params, body: request.body });
    if (!problem) return;
    const issues = [{ code: 'custom', path: problem.path, message: problem.message }];
    return reply.code(400).type('application/json').send({ code: 'BAD_REQUEST', message: problem.message, issues });
  });
}

/** Fastify's own errors before routing (a path with malformed percent-encoding) answer the documented body. */
export function frameworkErrorHandler(error: Error & { code?: string }, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL')
    void sendError(reply, 'BAD_REQUEST', 'The URL is not valid: malformed percent-encoding');
  else void sendError(reply, 'BAD_REQUEST', 'The request could not be routed');
}
