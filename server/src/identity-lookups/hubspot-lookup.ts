import { hubspotClient, hubspotWaitMs } from '../integrations/hubspot/driver';
import { parseRetryAfter, type HttpClient, type HttpResponse } from '../integrations/runtime/http-client';
import { jsonBody } from '../integrations/runtime/vendor-http';
import { LookupError } from './errors';
import { identifierCollector, lookupRedactor } from './found-identifiers';
import type { FoundIdentifier, IdentityLookupConfig } from './lookup-config';
import { answerFailure, thrownFailure } from './vendor-failure';

type HubspotLookupConfig = Extract<IdentityLookupConfig, { kind: 'hubspot' }>;

/**
 * A connector that looks a person up cheaply: the HubSpot contact whose email (a unique
 * property) is one the request knows, asked as written and in lower case with the HubSpot
 * integration's own lookup, its record id as `identifierType`. 404 is "no such contact".
 */
export async function runHubspotLookup(
  config: HubspotLookupConfig,
  known: readonly FoundIdentifier[],
  env: { http?: HttpClient; secrets?: Record<string, unknown> | null },
): Promise<FoundIdentifier[]> {
  const token = env.secrets?.apiKey;
  if (!env.http || typeof token !== 'string' || token === '')
    throw new LookupError('HubSpot lookup: the account has no access token', { transient: false });
  const client = hubspotClient(env.http, { baseUrl: config.baseUrl, identifierType: 'email' }, token);
  const redact = lookupRedactor(known, [token]);
  const collector = identifierCollector(known);
  const emails = [...new Set(known.filter((k) => k.type === 'email').flatMap((k) => [k.value, k.value.toLowerCase()]))];
  for (const email of emails) {
    let response: HttpResponse;
    try {
      response = await client.getContact(email);
    } catch (error) {
      throw thrownFailure('HubSpot', error, redact);
    }
    if (response.status === 404) continue;
    if (response.status !== 200)
      throw answerFailure(
        'HubSpot',
        response,
        // HubSpot's 429 names its window (or a daily limit) rather than sending Retry-After.
        response.status === 429
          ? hubspotWaitMs(response, Date.now())
          : parseRetryAfter(response.headers['retry-after']),
      );
    const id = (jsonBody(response) as { id?: unknown } | undefined)?.id;
    if (typeof id === 'string') collector.add(config.identifierType, id, 'HubSpot lookup: a contact id');
    if (collector.found.length > config.maxIdentifiers)
      throw new LookupError(
        `HubSpot lookup: more than ${config.maxIdentifiers} contacts match; raise the lookup's cap`,
        {
          transient: false,
        },
      );
  }
  return collector.found;
}
