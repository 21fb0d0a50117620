import type { HttpClient } from '../integrations/runtime/http-client';
import type { Exchange } from '../integrations/types';
import { runAuth0Lookup } from './auth0-lookup';
import { runHubspotLookup } from './hubspot-lookup';
import { LookupError } from './errors';
import { identityLookupConfigSchema, type FoundIdentifier, type IdentityLookupConfig } from './lookup-config';
import { runSqlLookup } from './sql-lookup';
import { runWebhookLookup } from './webhook-lookup';
import { runStripeLookup } from './stripe-lookup';

export { LookupConfigError, LookupError } from './errors';
export { validateLookupConfig, type FoundIdentifier, type IdentityLookupConfig } from './lookup-config';
export { identityLookupAnswerSchema, identityLookupRequestSchema } from './webhook-lookup';

export interface IdentityLookupEnv {
  /** SQL and connectors: the decrypted secrets of the account (PostgreSQL, MySQL/MariaDB, Stripe, Auth0 or HubSpot). */
  secrets?: Record<string, unknown> | null;
  /** SQL: resolves the database host through the SSRF policy. */
  resolveHost?: (host: string) => Promise<string>;
  /** Webhook and connectors: the SSRF-guarded HTTP client (it records the exchange in its trail). */
  http?: HttpClient;
  /** Auth0: the trail that HTTP client records into, so the granted access token is withheld from it. */
  trail?: Exchange[];
  /** Webhook: the Standard Webhooks secrets that sign the call, as callbacks are signed. */
  signingSecrets?: string[];
}

/**
 * Runs one identity lookup with the identifiers a request knows and returns the new ones it
 * found (each type and value once, none already known). Throws LookupError: `transient` when
 * a later attempt may succeed. Lookups run in order before the fan-out, each once per request.
 */
export async function runIdentityLookup(
  config: IdentityLookupConfig,
  known: FoundIdentifier[],
  env: IdentityLookupEnv,
): Promise<FoundIdentifier[]> {
  // Checked again as it is run: a stored configuration reaches the query text (the row cap) and the network.
  const parsed = identityLookupConfigSchema.safeParse(config);
  if (!parsed.success)
    throw new LookupError(`The lookup's configuration is not valid (${parsed.error.issues[0]!.path.join('.')})`, {
      transient: false,
    });
  const valid = parsed.data;
  if (valid.kind === 'sql') return runSqlLookup(valid, known, env);
  if (valid.kind === 'webhook') return runWebhookLookup(valid, known, env);
  const run: Record<
    typeof valid.kind,
    (config: never, known: FoundIdentifier[], env: IdentityLookupEnv) => Promise<FoundIdentifier[]>
  > = {
    stripe: runStripeLookup,
    auth0: runAuth0Lookup,
    hubspot: runHubspotLookup,
  };
  return run[valid.kind](valid as never, known, env);
}
