import { integrationTypeInfo } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import { hotQuery, type DbOrTx } from '../db/client';
import { AppError } from '../lib/errors';
import { openSecret } from '../lib/secret-store';
import type { Keyring } from '../lib/crypto';
import type { Config } from '../config';
import { needsRefresh, refreshOAuthAccount } from '../oauth/refresh';
import { driverFor } from '../integrations/registry';
import { PermanentError, type Driver, type DriverContext, type Exchange } from '../integrations/types';
import type { Logger } from '../lib/logger';
import type { OutboundPolicy } from '../lib/ssrf';
import { outboundTools, secretValues } from './outbound';

export interface Destination {
  driver: Driver;
  config: unknown;
  secrets: Record<string, unknown> | null;
}

export const accountContext = (accountId: string) => `account:${accountId}`;

/** Decrypts an account's credentials (a JSON object); `secretCipher` when the caller already read it (null: the account is gone). */
export async function loadAccountSecrets(
  deps: { prisma: DbOrTx; keyring: Keyring },
  organizationId: string,
  accountId: string,
  secretCipher?: string | null,
) {
  let sealed = secretCipher;
  if (sealed === undefined) {
    const [account] = await hotQuery<{ secretCipher: string }>(deps.prisma, `SELECT "secretCipher" FROM "Account" WHERE id = $1 AND "organizationId" = $2`, [accountId, organizationId]);
    sealed = account?.secretCipher ?? null;
  }
  if (sealed === null) throw new PermanentError('The account of this integration was deleted');
  return JSON.parse(await openSecret(deps, organizationId, sealed, accountContext(accountId))) as Record<string, unknown>;
}

/**
 * The driver, validated configuration and credentials for an integration (or for the
 * snapshot an integration request took). Problems are PermanentError: retrying will not help.
 */
export async function loadDestination(
  deps: { prisma: DbOrTx; keyring: Keyring; config?: Config },
  input: { type: IntegrationType; config: unknown; accountId: string | null; organizationId: string; secretCipher?: string | null },
): Promise<Destination> {
  const driver = driverFor(input.type);
  const info = integrationTypeInfo[input.type];
  if (!driver || !info) throw new PermanentError(`Integrations of type ${input.type} are not supported by this version`);
  const parsed = info.configSchema.safeParse(input.config);
  if (!parsed.success) throw new PermanentError(`The integration's configuration is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  if (!input.accountId && info.accountRequired) throw new PermanentError('This integration has no account');
  let secrets = input.accountId ? await loadAccountSecrets(deps, input.organizationId, input.accountId, input.secretCipher) : null;
  // An expired OAuth access token is refreshed (and stored) before any driver call uses it.
  if (secrets && input.accountId && deps.config && needsRefresh(secrets)) secrets = await refreshOAuthAccount({ ...deps, config: deps.config }, input.organizationId, input.accountId);
  return { driver, config: parsed.data, secrets };
}

/** For API callers: a destination problem is the user's to fix, so it is a 400 with the reason. */
export async function loadDestinationForUser(...args: Parameters<typeof loadDestination>): Promise<Destination> {
  try {
    return await loadDestination(...args);
  } catch (error) {
    if (error instanceof PermanentError) throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
}

/** The account an integration request uses: its integration's current one (a swap applies to requests in flight), else the snapshot's. */
export function currentAccountId(ir: { integration: { accountId: string | null } | null; accountId: string | null }): string | null {
  return ir.integration ? ir.integration.accountId : ir.accountId;
}

/** Everything a driver call needs for one integration request, with SSRF-guarded outbound tools recording into `trail`. */
export function driverContext(
  deps: { policy: OutboundPolicy; log: Logger },
  destination: Destination,
  request: Pick<DriverContext, 'integrationType' | 'integrationRequestId' | 'deletionRequestId' | 'identifier' | 'trackingId'>,
  trail: Exchange[],
  now = new Date(),
): DriverContext {
  return {
    ...request,
    config: destination.config,
    secrets: destination.secrets,
    trail,
    log: deps.log,
    now,
    ...outboundTools(deps.policy, trail, secretValues(destination.secrets)),
  };
}
