import { TRPCError } from '@trpc/server';
import type { Role } from '@shared/statuses';
import type { TokenScope } from '@shared/scopes';
import { hasRole, type Actor } from '../services/auth/actor';
import { authenticatePat, authenticateSession } from '../services/auth/authenticate';
import { AppError } from '../lib/errors';
import { SESSION_COOKIE, type Context } from './context';
import { baseProcedure, mapAppErrors, middleware, refuseInputProblem, throwMapped, unguardedProcedure } from './init';

/**
 * Cookie-authenticated mutations must come from our own origin (CSRF), on top of the
 * SameSite=Lax session cookie. Browsers send Origin on every cross-origin POST and
 * Sec-Fetch-Site on every request; a call with neither is not a browser (curl, scripts).
 */
function assertSameOrigin(ctx: Context): void {
  const fetchSite = ctx.headers['sec-fetch-site'];
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'Cross-origin request refused' });
  }
  const origin = ctx.headers.origin;
  if (!origin) return;
  const host = ctx.headers.host;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'Cross-origin request refused' });
  }
  if (originHost !== host && origin !== new URL(ctx.config.PUBLIC_URL).origin) {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'Cross-origin request refused' });
  }
}

const csrf = middleware(({ ctx, type, next }) => {
  if (ctx.channel === 'trpc' && type === 'mutation') assertSameOrigin(ctx);
  return next();
});

/** Anyone; used for sign-up, sign-in and health. */
export const publicProcedure = baseProcedure.use(csrf);

/**
 * The procedures of one batch share its context and start together: they share one session
 * lookup while it is under way. Once it has settled the next call looks again (a role or the
 * active organization may have changed since).
 */
const sessionLookups = new WeakMap<Context, { token: string; actor: Promise<Actor> }>();

export function sessionActor(ctx: Context, token: string): Promise<Actor> {
  const pending = sessionLookups.get(ctx);
  if (pending?.token === token) return pending.actor;
  const actor = authenticateSession(ctx.prisma, token).finally(() => {
    if (sessionLookups.get(ctx)?.actor === actor) sessionLookups.delete(ctx);
  });
  sessionLookups.set(ctx, { token, actor });
  return actor;
}

async function resolveActor(ctx: Context): Promise<Actor> {
  const apiKey = ctx.headers['x-api-key'];
  if (apiKey) return authenticatePat(ctx.prisma, apiKey.trim(), { cacheMs: ctx.config.TOKEN_CACHE_SECONDS * 1000 });
  const session = ctx.cookies[SESSION_COOKIE];
  if (session) return sessionActor(ctx, session);
  throw new AppError('UNAUTHORIZED', ctx.channel === 'rest' ? 'Missing X-API-Key header' : 'Please sign in');
}

/**
 * A token with limits (scopes, workspaces or both) may call only procedures whose meta names a
 * scope (those check the token's workspaces); with scopes, one of its own. The 403 names what
 * is missing. Sessions and tokens without limits call anything: the dashboard's management
 * procedures (tokens, members, workspaces, integrations...) take no limited token, so a
 * limited token can neither reach past its workspaces nor mint a wider token.
 */
function assertScope(actor: Actor, scope: TokenScope | undefined): void {
  if (!actor.scopes && !actor.workspaceIds) return;
  if (!scope)
    throw new AppError(
      'FORBIDDEN',
      actor.scopes
        ? `This token is limited to the scopes ${actor.scopes.join(', ')}; this operation needs a token without limits`
        : 'This token is limited to some workspaces; this operation needs a token without limits',
    );
  if (actor.scopes && !actor.scopes.includes(scope))
    throw new AppError('FORBIDDEN', `This token lacks the scope "${scope}"`);
}

/**
 * A signed-in member of an organization (session cookie or PAT). The input guard, the same-origin
 * check, authentication and the mapping of errors share one level of the chain (each level costs
 * every call two copies of its options), in the order `baseProcedure` and a middleware on it
 * would run them.
 */
export const authedProcedure = unguardedProcedure.use(async ({ ctx, meta, type, getRawInput, next }) => {
  let actor: Actor;
  try {
    await refuseInputProblem(ctx, getRawInput);
    if (ctx.channel === 'trpc' && type === 'mutation') assertSameOrigin(ctx);
    actor = await resolveActor(ctx);
    assertScope(actor, meta?.scope);
  } catch (error) {
    throwMapped(ctx, error);
  }
  return mapAppErrors(ctx, await next({ ctx: { actor } }));
});

const requireRole = (minimum: Role) =>
  middleware(({ ctx, next }) => {
    const actor = (ctx as Context & { actor: Actor }).actor;
    if (!hasRole(actor, minimum)) {
      throw new TRPCError({ code: 'FORBIDDEN', message: `This needs the ${minimum.toLowerCase()} role` });
    }
    return next();
  });

/** Members create and view deletion requests. */
export const memberProcedure = authedProcedure;
/** Admins manage workspaces, integrations and accounts. */
export const adminProcedure = authedProcedure.use(requireRole('ADMIN'));
/** Owners manage members, retention and the organization. */
export const ownerProcedure = authedProcedure.use(requireRole('OWNER'));
