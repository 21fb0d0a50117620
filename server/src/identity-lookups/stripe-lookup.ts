import type { StripeConfig } from '@shared/integrations';
import { stripeClient } from '../integrations/stripe/driver';
import { parseRetryAfter, type HttpClient, type HttpResponse } from '../integrations/runtime/http-client';
import { LookupError } from './errors';
import { identifierCollector, lookupRedactor } from './found-identifiers';
import type { FoundIdentifier, IdentityLookupConfig } from './lookup-config';
import { answerFailure, thrownFailure } from './vendor-failure';

type StripeLookupConfig = Extract<IdentityLookupConfig, { kind: 'stripe' }>;

/** Pages of 100 customers read at most per email. */
const MAX_PAGES = 5;

/**
 * A connector that looks a person up cheaply: the Stripe customers whose email is one the
 * request knows (Stripe's list filter is exact and case-sensitive, so the email is asked as
 * written and in lower case, as the Stripe integration deletes), their ids as `identifierType`.
 */
export async function runStripeLookup(
  config: StripeLookupConfig,
  known: readonly FoundIdentifier[],
  env: { http?: HttpClient; secrets?: Record<string, unknown> | null },
): Promise<FoundIdentifier[]> {
  const apiKey = env.secrets?.apiKey;
  if (!env.http || typeof apiKey !== 'string' || apiKey === '')
    throw new LookupError('Stripe lookup: the account has no API key', { transient: false });
  const client = stripeClient(env.http, { baseUrl: config.baseUrl } as StripeConfig, apiKey);
  const redact = lookupRedactor(known, [apiKey]);
  const collector = identifierCollector(known);
  const emails = [...new Set(known.filter((k) => k.type === 'email').flatMap((k) => [k.value, k.value.toLowerCase()]))];
  for (const email of emails) {
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      let response: HttpResponse;
      try {
        response = await client.listByEmail(email, after);
      } catch (error) {
        throw thrownFailure('Stripe', error, redact);
      }
      if (response.status !== 200)
        throw answerFailure('Stripe', response, parseRetryAfter(response.headers['retry-after']));
      const body = response.json() as { data?: { id?: unknown }[]; has_more?: unknown };
      const ids = (body.data ?? []).flatMap((customer) => (typeof customer.id === 'string' ? [customer.id] : []));
      for (const id of ids) collector.add(config.identifierType, id, 'Stripe lookup: a customer id');
      if (collector.found.length > config.maxIdentifiers)
        throw new LookupError(
          `Stripe lookup: more than ${config.maxIdentifiers} customers match; raise the lookup's cap or delete by customer id`,
          { transient: false },
        );
      if (body.has_more !== true || ids.length === 0) break;
      after = ids[ids.length - 1];
    }
  }
  return collector.found;
}
