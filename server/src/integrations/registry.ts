import type { IntegrationType } from '@shared/statuses';
import { postgresDriver } from './postgres/driver';
import type { Driver } from './types';
import { webhookDriver } from './webhook/driver';

/** Every destination the engine can drive, by integration type. */
export const drivers: Partial<Record<IntegrationType, Driver>> = {
  WEBHOOK: webhookDriver,
  POSTGRES: postgresDriver,
};

export function driverFor(type: IntegrationType): Driver | undefined {
  return drivers[type];
}
