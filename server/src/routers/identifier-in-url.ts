import type { Context } from '../trpc/context';
import { AppError } from '../lib/errors';

/**
 * A query whose filter holds a subject identifier must come as a POST body (the dashboard's
 * client sends these queries so): in a GET URL it would sit in browser history, proxies' and
 * servers' logs.
 */
export function refuseIdentifierInUrl(ctx: Pick<Context, 'method'>, filter: { identifier?: string }): void {
  if (filter.identifier && ctx.method === 'GET')
    throw new AppError('BAD_REQUEST', 'Send a search by identifier as POST, never in a URL');
}
