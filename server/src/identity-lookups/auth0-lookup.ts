import { auth0Client } from '../integrations/auth0/driver';
import { parseRetryAfter, type HttpClient, type HttpResponse } from '../integrations/runtime/http-client';
import { jsonBody, retryAfterMs } from '../integrations/runtime/vendor-http';
import type { Exchange } from '../integrations/types';
import { LookupError } from './errors';
import { identifierCollector, lookupRedactor } from './found-identifiers';
import type { FoundIdentifier, IdentityLookupConfig } from './lookup-config';
import { answerFailure, thrownFailure } from './vendor-failure';

type Auth0LookupConfig = Extract<IdentityLookupConfig, { kind: 'auth0' }>;

/**
 * A connector that looks a person up cheaply: the Auth0 users whose email is one the request
 * knows (Auth0's users-by-email is exact and case-sensitive and stores database users' emails in
 * lower case, so the email is asked as written and in lower case, as the Auth0 integration
 * deletes), their user_ids as `identifierType`. One user per connection may share an email.
 */
export async function runAuth0Lookup(
  config: Auth0LookupConfig,
  known: readonly FoundIdentifier[],
  env: { http?: HttpClient; secrets?: Record<string, unknown> | null; trail?: Exchange[] },
): Promise<FoundIdentifier[]> {
  const clientId = env.secrets?.apiKey;
  const clientSecret = env.secrets?.secretKey;
  if (!env.http || typeof clientId !== 'string' || !clientId || typeof clientSecret !== 'string' || !clientSecret)
    throw new LookupError('Auth0 lookup: the account has no client id and secret', { transient: false });
  // The trail lets the client keep the granted Management API token out of what is recorded.
  const client = auth0Client(
    env.http,
    { domain: config.domain, baseUrl: config.baseUrl, identifierType: 'email' },
    { clientId, clientSecret },
    env.trail,
  );
  const redact = lookupRedactor(known, [clientId, clientSecret]);
  const collector = identifierCollector(known);
  const emails = [...new Set(known.filter((k) => k.type === 'email').flatMap((k) => [k.value, k.value.toLowerCase()]))];
  for (const email of emails) {
    let response: HttpResponse;
    try {
      response = await client.usersByEmail(email);
    } catch (error) {
      throw thrownFailure('Auth0', error, redact);
    }
    if (response.status !== 200)
      throw answerFailure(
        'Auth0',
        response,
        // Auth0's 429 says when in x-ratelimit-reset (epoch seconds).
        response.status === 429 ? retryAfterMs(response, 1_000) : parseRetryAfter(response.headers['retry-after']),
      );
    const users = jsonBody(response);
    for (const user of Array.isArray(users) ? (users as { user_id?: unknown }[]) : [])
      if (typeof user?.user_id === 'string')
        collector.add(config.identifierType, user.user_id, 'Auth0 lookup: a user id');
    if (collector.found.length > config.maxIdentifiers)
      throw new LookupError(
        `Auth0 lookup: more than ${config.maxIdentifiers} users match; raise the lookup's cap or delete by user id`,
        { transient: false },
      );
  }
  return collector.found;
}
