import type { AccountSecretsByType } from '@shared/integrations/accounts';
import { AppError } from '../../lib/errors';
import { PermanentError, TransientError } from '../../integrations/types';

/** Node's codes for a connection that could not be made or was lost (a destination's, here, not the service's own database). */
const CONNECTION_CODES = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;

/** Where an account makes the service connect, as people know it: host and port, or the endpoint's host. */
export function destinationHost(secrets: Record<string, unknown> | null): string | null {
  const { host, port, endpoint, region } = (secrets ?? {}) as Partial<
    AccountSecretsByType['DATABASE'] & AccountSecretsByType['AWS']
  >;
  if (typeof host === 'string' && host) return port ? `${host}:${port}` : host;
  if (typeof endpoint === 'string' && endpoint) return URL.canParse(endpoint) ? new URL(endpoint).host : null;
  if (typeof region === 'string' && region) return `AWS ${region}`;
  return null;
}

/**
 * A destination's failure (refused connection, wrong password, missing table...) as the
 * user's to fix: 422 naming the destination and the cause. Only the service's own database
 * answers 503; an error the destination did not cause is handed back unchanged.
 */
export function destinationFailure(error: unknown, secrets: Record<string, unknown> | null): unknown {
  const fromDestination =
    error instanceof PermanentError ||
    error instanceof TransientError ||
    CONNECTION_CODES.test(String((error as { code?: unknown } | null)?.code ?? ''));
  if (!fromDestination || error instanceof AppError) return error;
  const host = destinationHost(secrets);
  const message = (error as Error).message;
  return new AppError('UNPROCESSABLE_CONTENT', host ? `${host}: ${message}` : message);
}
