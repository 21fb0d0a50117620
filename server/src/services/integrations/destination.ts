import { integrationTypeInfo, type AccountType } from '@shared/integrations';
import { usesHashKey } from '@shared/integrations/sql-columns';
import type { IntegrationType } from '@shared/statuses';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { Keyring } from '../../lib/crypto';
import type { Config } from '../../config';
import { driverFor } from '../../integrations/registry';
import { driverContext, type Destination } from '../../integrations/runtime/driver-context';
import { stepRedactor } from '../../integrations/runtime/redaction';
import type { Logger } from '../../lib/logger';
import type { OutboundPolicy } from '../../lib/ssrf';
import { PermanentError, type DriverContext, type Exchange } from '../../integrations/types';
import { needsRefresh, refreshOAuthAccount } from '../accounts/oauth-refresh';
import { openAccount } from '../accounts/secrets';
import { integrationHashKey } from './hash-key';

/**
 * The driver, validated configuration and credentials for an integration (or for the
 * snapshot an integration request took). Problems are PermanentError: retrying will not help.
 * `sealed`: the account row when the caller already read it (the worker's claim does).
 */
export async function loadDestination(
  deps: { prisma: DbOrTx; keyring: Keyring; config?: Config },
  input: {
    type: IntegrationType;
    config: unknown;
    accountId: string | null;
    organizationId: string;
    sealed?: { secretCipher: string | null; type: AccountType | null };
    /** The integration (null when it was deleted), whose hash key types with `usesHashKey` get; `hashKeyCipher` when already read. */
    integration: { id: string; hashKeyCipher?: string | null } | null;
  },
): Promise<Destination> {
  const driver = driverFor(input.type);
  const info = integrationTypeInfo[input.type];
  const parsed = info.configSchema.safeParse(input.config);
  if (!parsed.success)
    throw new PermanentError(
      `The integration's configuration is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  if (!input.accountId && info.accountRequired) throw new PermanentError('This integration has no account');
  const hashKey =
    usesHashKey(input.type) && input.integration
      ? await integrationHashKey(deps, input.organizationId, input.integration.id, input.integration.hashKeyCipher)
      : null;
  if (!input.accountId) return { driver, config: parsed.data, secrets: null, accountType: null, hashKey };
  const { type, secrets: stored } = await openAccount(deps, input.organizationId, input.accountId, input.sealed);
  // An expired OAuth access token is refreshed (and stored) before any driver call uses it.
  const secrets =
    deps.config && needsRefresh(stored)
      ? await refreshOAuthAccount({ ...deps, config: deps.config }, input.organizationId, input.accountId)
      : stored;
  return { driver, config: parsed.data, secrets, accountType: type, hashKey };
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
export function currentAccountId(ir: {
  integration: { accountId: string | null } | null;
  accountId: string | null;
}): string | null {
  return ir.integration ? ir.integration.accountId : ir.accountId;
}

/** A destination opened for one integration request: its driver, what blanks out its words, and each call's context. */
export interface OpenedDestination {
  destination: Destination;
  /** The account's declared secrets, then the person's identifiers, blanked out of a text. */
  redact: (text: string) => string;
  context(call: { identifier: string; trackingId: string | null; callKey?: string }): DriverContext;
}

/**
 * Loads a destination for an integration request (a deletion step, a cancel, a re-verification)
 * and binds what every call of it shares: the redactor of its answers and the driver context,
 * recording into `trail`.
 */
export async function openDestination(
  deps: { prisma: DbOrTx; keyring: Keyring; config?: Config; policy: OutboundPolicy; log: Logger },
  input: Parameters<typeof loadDestination>[1] & {
    request: Pick<
      DriverContext,
      | 'integrationType'
      | 'integrationRequestId'
      | 'deletionRequestId'
      | 'regulation'
      | 'manualTasks'
      | 'maxConcurrency'
      | 'connections'
    >;
    /** The values to blank out of what the destination says (the person's identifiers). */
    subject: string | null | readonly string[];
    /** Waits for each call's turn under the integration's rate (a deletion step's; see `callPacer`). */
    pace?: () => Promise<void>;
  },
  trail: Exchange[],
  now?: Date,
): Promise<OpenedDestination> {
  const destination = await loadDestination(deps, input);
  return {
    destination,
    redact: stepRedactor(destination, input.subject),
    context: (call) => driverContext(deps, destination, { ...input.request, ...call }, trail, now, input.pace),
  };
}
