import { describe, expect, it } from 'vitest';
import { errorSummary, failuresOf } from './attention';

describe('what the overview says about a failed integration', () => {
  it('keeps the first non-empty line of the error, cut to fit a row', () => {
    expect(errorSummary('\nHTTP 422: unknown subject\n{"error":"unknown subject"}')).toBe('HTTP 422: unknown subject');
    const long = errorSummary('x'.repeat(400))!;
    expect(long).toHaveLength(160);
    expect(long.endsWith('…')).toBe(true);
    expect(errorSummary(null)).toBeNull();
    expect(errorSummary('  \n ')).toBeNull();
  });

  it('names the integration and says why, even when no error was recorded', () => {
    const failures = failuresOf([
      {
        id: 'ir_1',
        integrationId: 'int_1',
        integrationName: 'Internal CRM',
        integrationType: 'WEBHOOK',
        status: 'FAILED',
        lastError: 'HTTP 422: unknown subject',
      },
      {
        id: 'ir_2',
        integrationId: null,
        integrationName: 'Old CRM',
        integrationType: 'WEBHOOK',
        status: 'ERROR',
        lastError: null,
      },
    ]);
    expect(failures).toEqual([
      {
        integrationRequestId: 'ir_1',
        integrationId: 'int_1',
        integrationName: 'Internal CRM',
        integrationType: 'WEBHOOK',
        status: 'FAILED',
        error: 'HTTP 422: unknown subject',
      },
      {
        integrationRequestId: 'ir_2',
        integrationId: null,
        integrationName: 'Old CRM',
        integrationType: 'WEBHOOK',
        status: 'ERROR',
        error: 'An internal error of the service',
      },
    ]);
  });
});
