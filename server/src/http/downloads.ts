import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenScope } from '@shared/scopes';
import { AppError } from '../lib/errors';
import type { Actor } from '../services/auth/actor';
import { authenticatePat, authenticateSession } from '../services/auth/authenticate';
import { buildCertificate } from '../services/certificates/build-certificate';
import { renderCertificatePdf } from '../services/certificates/render-pdf';
import { publicKeyPem, signingKeyFor } from '../services/certificates/signing-key';
import type { ServiceDeps } from '../services/deps';
import { SESSION_COOKIE } from '../trpc/context';
import { VIEWER_ZONE_COOKIE } from '@shared/early-requests';
import { isIanaTimeZone } from '@shared/zoned-days';
import { sendError } from './errors';

const REQUEST_ID = /^dr_[0-9a-z]{1,60}$/;

/** A download of requests' data needs the token's scope (a session, or a token without scope limits, has every one). */
export function assertTokenScope(actor: Actor, scope: TokenScope): void {
  if (actor.scopes && !actor.scopes.includes(scope))
    throw new AppError('FORBIDDEN', `This token lacks the scope "${scope}"`);
}

/** A PAT (X-API-Key) or the dashboard's session cookie: downloads are never anonymous. */
export async function actorOf(deps: ServiceDeps, request: FastifyRequest): Promise<Actor> {
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey)
    return authenticatePat(deps.prisma, apiKey.trim(), { cacheMs: deps.config.TOKEN_CACHE_SECONDS * 1000 });
  const session = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[
    SESSION_COOKIE
  ];
  if (session) return authenticateSession(deps.prisma, session);
  throw new AppError('UNAUTHORIZED', 'Sign in, or send a personal access token in X-API-Key');
}

/** The zone the dashboard shows this browser's times in (its cookie), for the PDF's times; UTC for other callers. */
function viewerTimeZone(request: FastifyRequest): string {
  const zone = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[
    VIEWER_ZONE_COOKIE
  ];
  return zone && zone.length <= 64 && isIanaTimeZone(zone) ? zone : 'UTC';
}

function download(reply: FastifyReply, type: string, filename: string, body: string | Buffer) {
  return reply
    .header('Content-Type', type)
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .header('Cache-Control', 'private, no-store')
    .send(body);
}

export async function guarded(reply: FastifyReply, run: () => Promise<unknown>) {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) return sendError(reply, error.code, error.message);
    throw error;
  }
}

/**
 * Authenticated file downloads: certificates of deletion (JSON and PDF) and the
 * organization's public key. URLs name a request id at most, never a subject identifier.
 */
export function registerDownloadRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  app.get<{ Params: { file: string } }>('/api/downloads/certificates/:file', (request, reply) =>
    guarded(reply, async () => {
      const match = /^(dr_[0-9a-z]+)\.(json|pdf)$/.exec(request.params.file);
      if (!match || !REQUEST_ID.test(match[1]!)) throw new AppError('NOT_FOUND', 'Certificate not found');
      const actor = await actorOf(deps, request);
      // What the destinations did with a request: as much as its audit trail shows (`requests:read`).
      assertTokenScope(actor, 'requests:read');
      const signed = await buildCertificate(deps.prisma, deps.keyring, actor, match[1]!);
      if (match[2] === 'json')
        return download(reply, 'application/json', `certificate-${match[1]}.json`, JSON.stringify(signed, null, 2));
      return download(
        reply,
        'application/pdf',
        `certificate-${match[1]}.pdf`,
        Buffer.from(await renderCertificatePdf(signed, viewerTimeZone(request))),
      );
    }),
  );
  app.get('/api/downloads/certificate-public-key.pem', (request, reply) =>
    guarded(reply, async () => {
      const actor = await actorOf(deps, request);
      const key = await signingKeyFor(deps.prisma, deps.keyring, actor.organizationId);
      return download(
        reply,
        'application/x-pem-file',
        `certificate-signing-key-${key.id}.pem`,
        publicKeyPem(key.publicKey),
      );
    }),
  );
}
