import type { RouterOutputs } from '../trpc';
import { filtersToSearchParams, type RequestFilters } from './request-filters';

type Overview = RouterOutputs['dashboard']['overview'];

/** A link to the Requests list showing `filters`, under the parameter names the list reads. */
export function requestsLink(filters: RequestFilters): string {
  const query = filtersToSearchParams(filters).toString();
  return query ? `/requests?${query}` : '/requests';
}

/**
 * The overview's window as a Requests filter: created since the start of its first day. The list
 * reads that day in the zone the overview cut its days in (both follow the viewer's UTC or local
 * choice), and nothing is created after now, so the two count the same requests.
 */
export function windowFilter(overview: Pick<Overview, 'perDay'>): RequestFilters {
  const first = overview.perDay[0]?.day;
  return first ? { from: first } : {};
}

export interface OverviewTile {
  label: string;
  value: number;
  tone?: 'success' | 'danger';
  /** The Requests list filtered to exactly what the tile counts. */
  to: string;
}

/** The overview's totals: the window's requests by outcome, and what is open or due whenever it was created. */
export function overviewTiles(overview: Overview): OverviewTile[] {
  const inWindow = windowFilter(overview);
  const attention = overview.byStatus.FAILED + overview.byStatus.ERROR;
  return [
    { label: `Requests, last ${overview.days} days`, value: overview.total, to: requestsLink(inWindow) },
    {
      label: 'In progress now',
      value: overview.openTotal,
      to: requestsLink({ statuses: ['STAGING', 'PENDING', 'PROCESSING'] }),
    },
    {
      label: 'Succeeded',
      value: overview.byStatus.SUCCESS,
      tone: 'success',
      to: requestsLink({ ...inWindow, statuses: ['SUCCESS'] }),
    },
    {
      label: 'Failed or errored',
      value: attention,
      tone: attention ? 'danger' : undefined,
      to: requestsLink({ ...inWindow, statuses: ['FAILED', 'ERROR'] }),
    },
    {
      label: 'Overdue',
      value: overview.overdueTotal,
      tone: overview.overdueTotal ? 'danger' : undefined,
      to: requestsLink({ due: 'overdue', sort: 'due' }),
    },
    { label: 'Due this week', value: overview.dueThisWeekTotal, to: requestsLink({ due: 'due7', sort: 'due' }) },
    // Only for organizations with CCPA requests to acknowledge: the others have nothing to count.
    ...(overview.unconfirmedReceiptTotal
      ? [
          {
            label: 'Receipt to confirm (CCPA)',
            value: overview.unconfirmedReceiptTotal,
            to: requestsLink({ due: 'unconfirmed', sort: 'due' }),
          },
        ]
      : []),
  ];
}
