import type { IntegrationType } from '@shared/statuses';
import { amplitudeDriver } from './amplitude/driver';
import { googleAnalyticsDriver } from './google-analytics/driver';
import { mixpanelDriver } from './mixpanel/driver';
import { postgresDriver } from './postgres/driver';
import { posthogDriver } from './posthog/driver';
import { segmentDriver } from './segment/driver';
import type { Driver } from './types';
import { webhookDriver } from './webhook/driver';

/** Every destination the engine can drive, by integration type: a connector is its folder and one line here. */
const drivers: Record<IntegrationType, Driver> = {
  WEBHOOK: webhookDriver,
  POSTGRES: postgresDriver,
  MIXPANEL: mixpanelDriver,
  AMPLITUDE: amplitudeDriver,
  SEGMENT: segmentDriver,
  POSTHOG: posthogDriver,
  GOOGLE_ANALYTICS: googleAnalyticsDriver,
};

export function driverFor(type: IntegrationType): Driver {
  return drivers[type];
}
