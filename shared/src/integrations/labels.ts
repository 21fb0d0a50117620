import { connectorsByType } from './connectors';

/** What each integration type is called in the dashboard and in messages (each connector's `label`). */
export const INTEGRATION_TYPE_LABELS = connectorsByType((connector) => connector.label);

/** The label of a type read as a plain string (an aggregate, say); an unknown one is shown as it is. */
export function integrationTypeLabel(type: string): string {
  return (INTEGRATION_TYPE_LABELS as Record<string, string>)[type] ?? type;
}
