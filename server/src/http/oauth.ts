import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OAUTH_PROVIDERS } from '@shared/integrations';
import { completeOAuthConnection } from '../services/accounts/oauth-connect';
import { OAUTH_STATE_COOKIE } from '../oauth/state-cookie';
import type { ServiceDeps } from '../services/deps';
import { sendError } from './errors';

type CallbackRequest = FastifyRequest<{
  Params: { provider: string };
  Querystring: Record<string, string | undefined>;
}>;

/**
 * GET /oauth/callback/:provider — where the provider sends the browser back after consent.
 * The outcome goes back to the dashboard as ?oauth=connected|error on the page that started it.
 */
export async function registerOAuthRoutes(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  app.get('/oauth/callback/:provider', async (request: CallbackRequest, reply) => {
    const { provider } = request.params;
    if (!(OAUTH_PROVIDERS as readonly string[]).includes(provider))
      return sendError(reply, 'NOT_FOUND', `No OAuth provider "${provider}"`);
    const cookie = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[
      OAUTH_STATE_COOKIE
    ];
    const q = request.query;
    // One use only, whatever the outcome.
    void reply.clearCookie(OAUTH_STATE_COOKIE, { path: '/' });
    const result = await completeOAuthConnection(deps, {
      provider,
      cookie,
      query: { code: q.code, state: q.state, error: q.error, error_description: q.error_description },
    });
    if (!result.ok) request.log.warn({ provider, reason: result.message }, 'OAuth connection failed');
    const target = new URL(result.returnTo, 'http://local');
    target.searchParams.set('oauth', result.ok ? 'connected' : 'error');
    if (result.accountId) target.searchParams.set('accountId', result.accountId);
    target.searchParams.set('message', result.message);
    return reply.redirect(target.pathname + target.search, 303);
  });
}
