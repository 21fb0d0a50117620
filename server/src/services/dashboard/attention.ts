import type { RequestStatus } from '@shared/statuses';

const SUMMARY_MAX = 160;

/** The first line of an integration's last error, short enough for a list row; the request's page has the whole of it. */
export function errorSummary(lastError: string | null): string | null {
  const firstLine = lastError
    ?.split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
  if (!firstLine) return null;
  return firstLine.length > SUMMARY_MAX ? `${firstLine.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : firstLine;
}

export interface FailedIntegrationRow {
  id: string;
  integrationId: string | null;
  integrationName: string;
  integrationType: string;
  status: RequestStatus;
  lastError: string | null;
}

/** Which integrations of a request that needs attention failed, and why (in one line each). */
export function failuresOf(integrationRequests: FailedIntegrationRow[]) {
  return integrationRequests.map((ir) => ({
    integrationRequestId: ir.id,
    integrationId: ir.integrationId,
    integrationName: ir.integrationName,
    integrationType: ir.integrationType,
    status: ir.status,
    error:
      errorSummary(ir.lastError) ??
      (ir.status === 'ERROR' ? 'An internal error of the service' : 'No error was recorded'),
  }));
}
