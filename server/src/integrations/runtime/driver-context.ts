import type { AccountType } from '@shared/integrations/accounts';
import type { Logger } from '../../lib/logger';
import type { OutboundPolicy } from '../../lib/ssrf';
import type { AdminContext, Driver, DriverContext, Exchange } from '../types';
import { outboundTools } from './outbound';
import { secretValues } from './redaction';

/** A driver with its validated configuration and its account's credentials, ready to call. */
export interface Destination {
  driver: Driver;
  config: unknown;
  secrets: Record<string, unknown> | null;
  /** Which fields of `secrets` are secret is declared by the account type. */
  accountType: AccountType | null;
  /** The integration's hash key (types with `usesHashKey`), else null. */
  hashKey?: Buffer | null;
}

/** Everything a driver call needs for one integration request, with SSRF-guarded outbound tools recording into `trail`. */
export function driverContext(
  deps: { policy: OutboundPolicy; log: Logger },
  destination: Destination,
  request: Pick<
    DriverContext,
    | 'integrationType'
    | 'integrationRequestId'
    | 'deletionRequestId'
    | 'identifier'
    | 'trackingId'
    | 'callKey'
    | 'regulation'
    | 'manualTasks'
    | 'maxConcurrency'
    | 'connections'
  >,
  trail: Exchange[],
  now = new Date(),
  pace?: () => Promise<void>,
): DriverContext {
  return { ...request, hashKey: destination.hashKey ?? null, ...adminContext(deps, destination, trail, now, pace) };
}

export function adminContext(
  deps: { policy: OutboundPolicy; log: Logger },
  destination: Omit<Destination, 'driver'> & { driver: Pick<Driver, 'type'> },
  trail: Exchange[],
  now = new Date(),
  /** Waits for each HTTP call's turn under the integration's rate (a deletion step's calls). */
  pace?: () => Promise<void>,
): AdminContext {
  return {
    integrationType: destination.driver.type,
    config: destination.config,
    secrets: destination.secrets,
    trail,
    log: deps.log,
    now,
    ...outboundTools(deps.policy, trail, secretValues(destination.accountType, destination.secrets), pace),
  };
}
