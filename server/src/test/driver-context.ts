import { createHttpClient } from '../integrations/runtime/http-client';
import type { DriverContext, Exchange } from '../integrations/types';
import type { IntegrationType } from '@shared/statuses';
import { createLogger } from '../lib/logger';

const logger = createLogger('silent');

/** The hash key a test driver context carries unless told otherwise (a store's `hash` rules need one). */
export const TEST_HASH_KEY = Buffer.alloc(32, 7);

/**
 * A driver context for calling one driver directly against a loopback fake: real HTTP, the
 * recorded trail, no database. `identifier` and `trackingId` default to a test subject.
 */
export function driverContext<Config>(
  integrationType: IntegrationType,
  config: Config,
  secrets: Record<string, unknown> | null,
  overrides: Partial<Pick<DriverContext<Config>, 'identifier' | 'trackingId' | 'now' | 'regulation' | 'hashKey'>> = {},
): DriverContext<Config> & { trail: Exchange[] } {
  const trail: Exchange[] = [];
  const secretValues = Object.values(secrets ?? {}).filter((v): v is string => typeof v === 'string');
  return {
    integrationType,
    integrationRequestId: `ir-${Math.random().toString(36).slice(2)}`,
    deletionRequestId: 'dr-test',
    identifier: overrides.identifier ?? 'subject-1',
    config,
    secrets,
    hashKey: overrides.hashKey !== undefined ? overrides.hashKey : TEST_HASH_KEY,
    trackingId: overrides.trackingId ?? null,
    regulation: overrides.regulation ?? null,
    http: createHttpClient({ trail, secrets: secretValues }),
    trail,
    resolveHost: async (host) => host,
    log: logger,
    now: overrides.now ?? new Date(),
  };
}
