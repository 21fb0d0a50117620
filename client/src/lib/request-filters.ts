import { REQUESTS_PAGE_SIZE } from '@shared/early-requests';
import { DUE_FILTERS, REQUEST_STATUSES, type DueFilter, type RequestStatus } from '@shared/status-values';
import type { TimeZoneChoice } from './time-zone';

/**
 * The Requests screen's filters. All but the identifier live in the URL, so a filtered view
 * is a deep link; the identifier (personal data) lives in the history entry's state, never
 * in the address bar, browser history's URL list, or a server log.
 */
export interface RequestFilters {
  workspaceId?: string;
  statuses?: RequestStatus[];
  /** YYYY-MM-DD: a day in the zone the viewer shows times in (UTC, or the browser's own). */
  from?: string;
  to?: string;
  createdByUserId?: string;
  identifier?: string;
  /** Deadline filter: past due, or due within 7 days (unfulfilled requests). */
  due?: DueFilter;
  /** "due": nearest deadline first; absent: newest first. */
  sort?: 'due';
}

export { REQUESTS_PAGE_SIZE };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The history state that carries the identifier search. */
export interface RequestFiltersState {
  identifier?: string;
}

export function identifierFromState(state: unknown): string | undefined {
  const identifier = (state as RequestFiltersState | null)?.identifier;
  return typeof identifier === 'string' && identifier ? identifier : undefined;
}

export function filtersFromSearchParams(
  params: URLSearchParams,
  state: RequestFiltersState | null = null,
): RequestFilters {
  const statuses = (params.get('status') ?? '')
    .split(',')
    .filter((s): s is RequestStatus => (REQUEST_STATUSES as readonly string[]).includes(s));
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  return clean({
    workspaceId: params.get('workspace') ?? undefined,
    statuses: statuses.length ? statuses : undefined,
    from: DATE.test(from) ? from : undefined,
    to: DATE.test(to) ? to : undefined,
    createdByUserId: params.get('createdBy') ?? undefined,
    identifier: identifierFromState(state),
    due: (DUE_FILTERS as readonly string[]).includes(params.get('due') ?? '')
      ? (params.get('due') as DueFilter)
      : undefined,
    sort: params.get('sort') === 'due' ? 'due' : undefined,
  });
}

export function filtersToSearchParams(filters: RequestFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.workspaceId) params.set('workspace', filters.workspaceId);
  if (filters.statuses?.length) params.set('status', filters.statuses.join(','));
  if (filters.from) params.set('from', filters.from);
  if (filters.to) params.set('to', filters.to);
  if (filters.createdByUserId) params.set('createdBy', filters.createdByUserId);
  if (filters.due) params.set('due', filters.due);
  if (filters.sort) params.set('sort', filters.sort);
  return params;
}

/**
 * A calendar day's first and last instants, "to" including the whole day: the UTC day when the
 * viewer shows times in UTC, otherwise the day in the browser's zone.
 */
export function dayStart(day: string, zone: TimeZoneChoice): string {
  return dayInstant(day, zone, [0, 0, 0, 0]);
}

export function dayEnd(day: string, zone: TimeZoneChoice): string {
  return dayInstant(day, zone, [23, 59, 59, 999]);
}

function dayInstant(day: string, zone: TimeZoneChoice, [h, min, s, ms]: [number, number, number, number]): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return (
    zone === 'UTC' ? new Date(Date.UTC(y, m - 1, d, h, min, s, ms)) : new Date(y, m - 1, d, h, min, s, ms)
  ).toISOString();
}

/** The server's search filter for these URL filters, their days taken in `zone`. */
export function toSearchFilter(filters: RequestFilters, zone: TimeZoneChoice) {
  return clean({
    workspaceId: filters.workspaceId,
    statuses: filters.statuses,
    createdFrom: filters.from ? dayStart(filters.from, zone) : undefined,
    createdTo: filters.to ? dayEnd(filters.to, zone) : undefined,
    createdByUserId: filters.createdByUserId,
    identifier: filters.identifier?.trim() || undefined,
    due: filters.due,
  });
}

/**
 * The checks of the server's filter schema that a person can get wrong in this form, without
 * loading zod on the Requests page (its first screen): a date range that ends before it starts.
 */
export function checkRequestFilters(
  filter: ReturnType<typeof toSearchFilter>,
): { ok: true } | { ok: false; errors: Record<string, string> } {
  if (filter.createdFrom && filter.createdTo && Date.parse(filter.createdFrom) > Date.parse(filter.createdTo)) {
    return { ok: false, errors: { createdTo: 'The end date must not be before the start date' } };
  }
  return { ok: true };
}

export function hasFilters(filters: RequestFilters): boolean {
  const { sort: _sort, ...rest } = filters;
  return Object.keys(clean(rest)).length > 0;
}

function clean<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as T;
}
