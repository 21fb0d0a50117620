import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toAuditFilter } from './audit-log';

describe('the audit log date filter', () => {
  // A browser eleven hours behind UTC: its 1 March starts at 11:00 UTC.
  const browserZone = process.env.TZ;
  beforeEach(() => {
    process.env.TZ = 'Pacific/Pago_Pago';
  });
  afterEach(() => {
    if (browserZone === undefined) delete process.env.TZ;
    else process.env.TZ = browserZone;
  });

  it("takes the browser's days when times show in its zone, UTC days when they show in UTC", () => {
    const days = { from: '2026-03-01', to: '2026-03-01' };
    expect(toAuditFilter(days, 'local').filter).toEqual({
      createdFrom: '2026-03-01T11:00:00.000Z',
      createdTo: '2026-03-02T10:59:59.999Z',
    });
    expect(toAuditFilter(days, 'UTC').filter).toEqual({
      createdFrom: '2026-03-01T00:00:00.000Z',
      createdTo: '2026-03-01T23:59:59.999Z',
    });
  });

  it('refuses a range that ends before it starts', () => {
    expect(toAuditFilter({ from: '2026-03-02', to: '2026-03-01' }, 'UTC').errors).toEqual({
      to: 'The end date must not be before the start date',
    });
  });
});
