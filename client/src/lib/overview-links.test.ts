import { describe, expect, it } from 'vitest';
import type { RouterOutputs } from '../trpc';
import { overviewTiles } from './overview-links';
import { filtersFromSearchParams, filtersToSearchParams } from './request-filters';

const counts = { STAGING: 0, PENDING: 1, PROCESSING: 1, SUCCESS: 6, CANCELED: 1, FAILED: 2, ERROR: 1 };
const overview = {
  days: 7,
  total: 12,
  openTotal: 4,
  byStatus: counts,
  overdueTotal: 2,
  dueThisWeekTotal: 3,
  perDay: ['01', '02', '03', '04', '05', '06', '07'].map((d) => ({ day: `2026-03-${d}`, counts })),
} as unknown as RouterOutputs['dashboard']['overview'];

const listUrl = (to: string) => new URL(to, 'https://dashboard.example');

describe('the overview tiles', () => {
  it("open the Requests list filtered to what each counts, the window's from its first day", () => {
    const shown = overviewTiles(overview).map((tile) => [
      tile.label,
      tile.value,
      filtersFromSearchParams(listUrl(tile.to).searchParams),
    ]);
    expect(shown).toEqual([
      ['Requests, last 7 days', 12, { from: '2026-03-01' }],
      ['In progress now', 4, { statuses: ['STAGING', 'PENDING', 'PROCESSING'] }],
      ['Succeeded', 6, { statuses: ['SUCCESS'], from: '2026-03-01' }],
      ['Failed or errored', 3, { statuses: ['FAILED', 'ERROR'], from: '2026-03-01' }],
      ['Overdue', 2, { due: 'overdue', sort: 'due' }],
      ['Due this week', 3, { due: 'due7', sort: 'due' }],
    ]);
    // With CCPA requests whose receipt is still to be confirmed, a tile for them.
    const withReceipts = overviewTiles({ ...overview, unconfirmedReceiptTotal: 2 });
    expect(withReceipts.at(-1)).toMatchObject({ label: 'Receipt to confirm (CCPA)', value: 2 });
    expect(filtersFromSearchParams(listUrl(withReceipts.at(-1)!.to).searchParams)).toEqual({
      due: 'unconfirmed',
      sort: 'due',
    });
  });

  it('link to the Requests list with no parameter it does not read', () => {
    for (const tile of overviewTiles(overview)) {
      const url = listUrl(tile.to);
      expect(url.pathname).toBe('/requests');
      const read = filtersToSearchParams(filtersFromSearchParams(url.searchParams));
      expect([...read.keys()].sort()).toEqual([...url.searchParams.keys()].sort());
    }
  });
});
