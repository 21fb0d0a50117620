import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  dayEnd,
  dayStart,
  filtersFromSearchParams,
  filtersToSearchParams,
  hasFilters,
  toSearchFilter,
} from './request-filters';

describe('request filters in the URL', () => {
  it('round-trips through search params, except the identifier, which never goes into the URL', () => {
    const filters = {
      workspaceId: 'ws_1',
      statuses: ['FAILED' as const, 'ERROR' as const],
      from: '2026-01-01',
      to: '2026-01-31',
      createdByUserId: 'usr_1',
    };
    expect(filtersFromSearchParams(filtersToSearchParams({ ...filters, identifier: 'a@b.c' }))).toEqual(filters);
    expect(filtersToSearchParams({ ...filters, identifier: 'a@b.c' }).toString()).not.toContain('a%40b.c');
    expect(filtersFromSearchParams(new URLSearchParams('identifier=a%40b.c'), { identifier: 'x@y.z' })).toEqual({
      identifier: 'x@y.z',
    });
    expect(filtersFromSearchParams(new URLSearchParams('identifier=a%40b.c'))).toEqual({});
  });

  it('drops unknown statuses and malformed dates from a hand-edited link', () => {
    expect(filtersFromSearchParams(new URLSearchParams('status=FAILED,BOGUS&from=yesterday'))).toEqual({
      statuses: ['FAILED'],
    });
    expect(hasFilters(filtersFromSearchParams(new URLSearchParams('status=BOGUS')))).toBe(false);
  });

  it('turns local days into an inclusive instant range and trims the identifier', () => {
    const filter = toSearchFilter({ from: '2026-03-01', to: '2026-03-01', identifier: '  x@y.z ' }, 'local');
    expect(filter.createdFrom).toBe(dayStart('2026-03-01', 'local'));
    expect(filter.createdTo).toBe(dayEnd('2026-03-01', 'local'));
    expect(new Date(filter.createdTo!).getTime() - new Date(filter.createdFrom!).getTime()).toBe(86_399_999);
    expect(filter.identifier).toBe('x@y.z');
  });
});

describe('the days of the date filters', () => {
  // A browser fourteen hours ahead of UTC: its 1 March starts at 10:00 UTC on 28 February.
  const browserZone = process.env.TZ;
  beforeEach(() => {
    process.env.TZ = 'Pacific/Kiritimati';
  });
  afterEach(() => {
    if (browserZone === undefined) delete process.env.TZ;
    else process.env.TZ = browserZone;
  });

  it("are the browser's days when times show in its zone", () => {
    expect(toSearchFilter({ from: '2026-03-01', to: '2026-03-01' }, 'local')).toEqual({
      createdFrom: '2026-02-28T10:00:00.000Z',
      createdTo: '2026-03-01T09:59:59.999Z',
    });
  });

  it('are UTC days when the viewer shows times in UTC', () => {
    expect(toSearchFilter({ from: '2026-03-01', to: '2026-03-02' }, 'UTC')).toEqual({
      createdFrom: '2026-03-01T00:00:00.000Z',
      createdTo: '2026-03-02T23:59:59.999Z',
    });
  });
});

describe('checkRequestFilters', () => {
  it('refuses a range that ends before it starts, before anything is sent, as the server schema does', async () => {
    const { checkRequestFilters } = await import('./request-filters');
    const { requestSearchFilterSchema } = await import('@shared/schemas/dashboard');
    const backwards = toSearchFilter({ from: '2026-03-02', to: '2026-03-01' }, 'local');
    expect(checkRequestFilters(backwards)).toEqual({
      ok: false,
      errors: { createdTo: 'The end date must not be before the start date' },
    });
    expect(requestSearchFilterSchema.safeParse(backwards).success).toBe(false);
    expect(checkRequestFilters(toSearchFilter({ from: '2026-03-01', to: '2026-03-01' }, 'UTC'))).toEqual({ ok: true });
    // Instants, not text: with different offsets the earlier one may sort later as a string.
    const offsets = { createdFrom: '2026-01-01T10:00:00+05:00', createdTo: '2026-01-01T06:00:00Z' };
    expect(requestSearchFilterSchema.safeParse(offsets).success).toBe(true);
    const reversed = { createdFrom: '2026-01-01T06:00:00Z', createdTo: '2026-01-01T10:00:00+05:00' };
    expect(requestSearchFilterSchema.safeParse(reversed).success).toBe(false);
  });
});
