import type { IntegrationType } from '@shared/statuses';
import { createCustomerDatabase } from '../customer-db';
import { startAmplitudeFake } from './amplitude';
import { startGoogleFake } from './google-analytics';
import { startMixpanelFake } from './mixpanel';
import { startPosthogFake } from './posthog';
import { startSegmentFake } from './segment';
import { startWebhookServer } from './webhook-server';

/** A destination for tests: where it listens (an http URL, or a PostgreSQL connection string) and how to stop it. */
export interface StandIn {
  url: string;
  close(): Promise<void>;
}

/**
 * The stand-in destination of every integration type: a loopback server implementing the
 * vendor's documented contract, or a real database. Total by type, so a connector without
 * a fake does not compile.
 */
export const standIns: Record<IntegrationType, () => Promise<StandIn>> = {
  WEBHOOK: startWebhookServer,
  POSTGRES: createCustomerDatabase,
  MIXPANEL: () => startMixpanelFake(),
  AMPLITUDE: () => startAmplitudeFake(),
  SEGMENT: () => startSegmentFake(),
  POSTHOG: () => startPosthogFake(),
  GOOGLE_ANALYTICS: () => startGoogleFake(),
};
