/**
 * The Requests screen's filters: the identifier search and the statuses in view, the others under
 * "More filters"; on a phone all of them folded under one line.
 */
import type { RequestStatus } from '@shared/statuses';
import { useState, useSyncExternalStore } from 'react';
import { SelectField, TextField } from './field';
import { hasFilters, type RequestFilters } from '../lib/request-filters';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { REQUEST_STATUSES, STATUS_LABEL } from '../lib/status';

const PHONE = '(max-width: 600px)';
const subscribePhone = (listener: () => void) => {
  const query = window.matchMedia(PHONE);
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
};

/** The filters under "More filters", and the error keys of their fields. */
const MORE_FILTERS = ['workspaceId', 'createdByUserId', 'from', 'to', 'due', 'sort'] as const;
const MORE_FILTER_ERRORS = ['workspaceId', 'createdByUserId', 'createdFrom', 'createdTo'];

export const activeFilterCount = (filters: RequestFilters) => Object.keys(filters).length;

/** On a phone the filters start folded under one line (they would fill the first screen); elsewhere they are always open. */
export function FiltersPanel({
  active,
  hasErrors,
  children,
}: {
  active: number;
  hasErrors: boolean;
  children: React.ReactNode;
}) {
  const phone = useSyncExternalStore(
    subscribePhone,
    () => window.matchMedia(PHONE).matches,
    () => false,
  );
  if (!phone) return <>{children}</>;
  return (
    <details className="card filters-panel" open={hasErrors || undefined}>
      <summary>Filters{active ? ` · ${active} active` : ''}</summary>
      {children}
    </details>
  );
}

export function Filters(props: {
  filters: RequestFilters;
  onChange: (next: RequestFilters) => void;
  errors: Record<string, string>;
  workspaces: { id: string; name: string }[];
  members: { id: string; name: string; email: string }[];
}) {
  const { filters, onChange, errors } = props;
  // The days are UTC days when times show in UTC (see request-filters.ts): the labels say so.
  const inZone = useTimeZoneChoice() === 'UTC' ? ' (UTC)' : '';
  const [identifier, setIdentifier] = useState(filters.identifier ?? '');
  // The box follows the filter when it changes elsewhere ("Clear the filters", Back and Forward),
  // so a cleared search does not stay in the box to be applied again.
  const [applied, setApplied] = useState(filters.identifier);
  if (applied !== filters.identifier) {
    setApplied(filters.identifier);
    setIdentifier(filters.identifier ?? '');
  }
  // The filters used less often are folded under "More filters" (the list starts higher on the
  // screen, and the page the server sends is lighter); they unfold when one of them is set or
  // has an error, as after a deep link, Back or an overview tile.
  const moreActive = MORE_FILTERS.filter((key) => filters[key] !== undefined).length;
  const moreNeeded = moreActive > 0 || MORE_FILTER_ERRORS.some((key) => errors[key]);
  const [moreOpen, setMoreOpen] = useState(moreNeeded);
  const [neededBefore, setNeededBefore] = useState(moreNeeded);
  if (neededBefore !== moreNeeded) {
    setNeededBefore(moreNeeded);
    if (moreNeeded) setMoreOpen(true);
  }
  const toggleStatus = (status: RequestStatus, on: boolean) => {
    const current = new Set(filters.statuses ?? []);
    if (on) current.add(status);
    else current.delete(status);
    onChange({ ...filters, statuses: REQUEST_STATUSES.filter((s) => current.has(s)) });
  };
  return (
    <form
      className="card filters"
      role="search"
      aria-label="Filter requests"
      onSubmit={(event) => {
        event.preventDefault();
        onChange({ ...filters, identifier: identifier.trim() || undefined });
      }}
    >
      <div className="filters-search">
        <TextField
          label="Identifier (exact match)"
          name="identifier"
          type="search"
          value={identifier}
          placeholder="jane@example.com"
          autoComplete="off"
          onChange={(event) => setIdentifier(event.target.value)}
          error={errors.identifier}
        />
        <button type="submit" className="button">
          Search
        </button>
      </div>
      <fieldset className="status-filter">
        <legend>Status</legend>
        {REQUEST_STATUSES.map((status) => (
          <label key={status} className="chip">
            <input
              type="checkbox"
              checked={filters.statuses?.includes(status) ?? false}
              onChange={(e) => toggleStatus(status, e.target.checked)}
            />
            {STATUS_LABEL[status]}
          </label>
        ))}
        {hasFilters(filters) ? (
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setIdentifier('');
              onChange({});
            }}
          >
            Clear all filters
          </button>
        ) : null}
      </fieldset>
      <details className="more-filters" open={moreOpen} onToggle={(event) => setMoreOpen(event.currentTarget.open)}>
        <summary>More filters{moreActive ? ` · ${moreActive} active` : ''}</summary>
        {moreOpen ? (
          <div className="filters-grid">
            <SelectField
              label="Workspace"
              value={filters.workspaceId ?? ''}
              onChange={(e) => onChange({ ...filters, workspaceId: e.target.value || undefined })}
              error={errors.workspaceId}
            >
              <option value="">All workspaces</option>
              {props.workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </SelectField>
            <SelectField
              label="Created by"
              value={filters.createdByUserId ?? ''}
              onChange={(e) => onChange({ ...filters, createdByUserId: e.target.value || undefined })}
              error={errors.createdByUserId}
            >
              <option value="">Anyone</option>
              {props.members.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name || m.email}
                </option>
              ))}
            </SelectField>
            <TextField
              label={`Created from${inZone}`}
              type="date"
              value={filters.from ?? ''}
              onChange={(e) => onChange({ ...filters, from: e.target.value || undefined })}
              error={errors.createdFrom}
            />
            <TextField
              label={`Created to${inZone}`}
              type="date"
              value={filters.to ?? ''}
              onChange={(e) => onChange({ ...filters, to: e.target.value || undefined })}
              error={errors.createdTo}
            />
            <SelectField
              label="Deadline"
              value={filters.due ?? ''}
              onChange={(e) => onChange({ ...filters, due: (e.target.value || undefined) as RequestFilters['due'] })}
            >
              <option value="">Any deadline</option>
              <option value="overdue">Overdue</option>
              <option value="due7">Due in 7 days</option>
              <option value="unconfirmed">Receipt not yet confirmed (CCPA)</option>
            </SelectField>
            <SelectField
              label="Sort by"
              value={filters.sort ?? ''}
              onChange={(e) => onChange({ ...filters, sort: e.target.value === 'due' ? 'due' : undefined })}
            >
              <option value="">Newest first</option>
              <option value="due">
                {filters.due === 'unconfirmed' ? 'Nearest receipt deadline first' : 'Nearest deadline first'}
              </option>
            </SelectField>
          </div>
        ) : null}
      </details>
    </form>
  );
}
