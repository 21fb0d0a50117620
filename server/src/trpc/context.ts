import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../lib/logger';
import type { ServiceDeps } from '../services/deps';

export interface CookieOptions {
  maxAgeSeconds?: number;
}

export interface Context extends ServiceDeps {
  /** "rest" for the public API (PAT only), "trpc" for the dashboard (session cookie or PAT). */
  channel: 'trpc' | 'rest';
  requestId: string;
  /** The HTTP method: searches by a subject identifier must come as POST (never in a URL). */
  method: string;
  ip: string;
  headers: Record<string, string | undefined>;
  cookies: Record<string, string | undefined>;
  /** Status and headers a procedure wants on its HTTP response (201, Link, Retry-After). */
  response: { status?: number; headers: Record<string, string> };
  setCookie(name: string, value: string, options?: CookieOptions): void;
  clearCookie(name: string): void;
}

export const SESSION_COOKIE = 'dds_session';

function lowerCaseHeaders(raw: FastifyRequest['headers']): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(raw))
    headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

export function createContextFactory(deps: ServiceDeps, channel: Context['channel']) {
  const secure = deps.config.PUBLIC_URL.startsWith('https://');
  return ({ req, res }: { req: FastifyRequest; res: FastifyReply }): Context => ({
    ...deps,
    log: req.log as Logger,
    channel,
    requestId: String(req.id),
    method: req.method,
    ip: req.ip,
    headers: lowerCaseHeaders(req.headers),
    // The public API authenticates with PATs only: a browser cookie never authorises it.
    cookies: channel === 'trpc' ? ((req as FastifyRequest & { cookies?: Record<string, string> }).cookies ?? {}) : {},
    response: { headers: {} },
    setCookie(name, value, options) {
      void res.setCookie(name, value, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure,
        maxAge: options?.maxAgeSeconds,
      });
    },
    clearCookie(name) {
      void res.clearCookie(name, { path: '/' });
    },
  });
}
