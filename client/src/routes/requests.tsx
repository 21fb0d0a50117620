import type { RequestStatus } from '@shared/statuses';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { SelectField, TextField } from '../components/field';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, Loading } from '../components/states';
import { SegmentedStatusBar, StatusBadge } from '../components/status';
import { DueDate } from '../components/due-date';
import { toDisplayError } from '../lib/errors';
import { formatDateTime, formatRelative } from '../lib/format';
import {
  checkRequestFilters,
  filtersFromSearchParams,
  filtersToSearchParams,
  hasFilters,
  toSearchFilter,
  type RequestFilters,
  type RequestFiltersState,
} from '../lib/request-filters';
import { progressSummary, REQUEST_STATUSES, STATUS_LABEL } from '../lib/status';
import { LIVE_REFRESH_MS, requestListQueries } from '../lib/request-queries';
import { LiveIndicator } from '../components/live-indicator';
import { RevealableIdentifier } from '../components/revealable-identifier';
import { BulkActionBar, EMPTY_SELECTION, type Selection } from '../components/bulk-actions';
import { useTRPC, type RouterOutputs } from '../trpc';

type RequestRow = RouterOutputs['dashboard']['searchRequests']['items'][number];

/**
 * Downloads the filtered list as CSV. The filters travel in a POST body, so an identifier
 * filter never lands in a URL (server logs, history).
 */
function ExportCsvButton({
  filter,
  sort,
  disabled,
}: {
  filter: ReturnType<typeof toSearchFilter>;
  sort: 'created' | 'due';
  disabled: boolean;
}) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const run = async () => {
    setState({ busy: true, error: null });
    try {
      const res = await fetch('/api/downloads/requests.csv', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ filter, sort }),
      });
      if (!res.ok)
        throw new Error(
          ((await res.json().catch(() => null)) as { message?: string } | null)?.message ??
            `Export failed (${res.status})`,
        );
      const name =
        /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'deletion-requests.csv';
      const url = URL.createObjectURL(await res.blob());
      const link = Object.assign(document.createElement('a'), { href: url, download: name });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState({ busy: false, error: null });
    } catch (error) {
      setState({ busy: false, error: (error as Error).message });
    }
  };
  return (
    <>
      <button type="button" className="button" disabled={disabled || state.busy} onClick={() => void run()}>
        {state.busy ? 'Exporting…' : 'Export CSV'}
      </button>
      {state.error ? (
        <span className="form-error" role="alert">
          {state.error}
        </span>
      ) : null}
    </>
  );
}

export function Component() {
  const trpc = useTRPC();
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const filters = useMemo(
    () => filtersFromSearchParams(params, location.state as RequestFiltersState | null),
    [params, location.state],
  );
  const setFilters = (next: RequestFilters) =>
    setParams(filtersToSearchParams(next), {
      replace: true,
      state: next.identifier ? ({ identifier: next.identifier } satisfies RequestFiltersState) : null,
    });

  const searchFilter = toSearchFilter(filters);
  // Checked here, before anything is sent (the server checks the same with its schema).
  const validation = checkRequestFilters(searchFilter);
  const queries = requestListQueries(trpc, searchFilter, validation.ok, filters.sort ?? 'created');
  const workspaces = useQuery(queries.workspaces);
  const members = useQuery(queries.members);
  const requests = useInfiniteQuery(queries.requests);
  const serverErrors = requests.error ? toDisplayError(requests.error, 'filter').fieldErrors : {};
  const fieldErrors = { ...(validation.ok ? {} : validation.errors), ...serverErrors };
  const rows = requests.data?.pages.flatMap((page) => page.items) ?? [];
  // A selection belongs to the filter it was made under: another filter starts with none.
  const filterKey = JSON.stringify(searchFilter);
  const [selected, setSelected] = useState<{ filterKey: string; selection: Selection }>({
    filterKey,
    selection: EMPTY_SELECTION,
  });
  const selection = selected.filterKey === filterKey ? selected.selection : EMPTY_SELECTION;
  const setSelection = (next: Selection) => setSelected({ filterKey, selection: next });
  const allOnPage = rows.length > 0 && rows.every((row) => selection.ids.has(row.id));
  const labels = new Map(rows.map((row) => [row.id, row.maskedIdentifier ?? '(deleted by retention)']));

  return (
    <>
      <PageHeader
        title="Requests"
        description="Every deletion request in your organization, newest first. Statuses update live."
        actions={
          <>
            <ExportCsvButton filter={searchFilter} sort={filters.sort ?? 'created'} disabled={!validation.ok} />
            <Link to="/requests/import" className="button">
              Import CSV
            </Link>
            <Link to="/requests/new" className="button button-primary">
              Create request
            </Link>
          </>
        }
      />
      <FiltersPanel active={activeFilterCount(filters)} hasErrors={Object.keys(fieldErrors).length > 0}>
        <Filters
          filters={filters}
          onChange={setFilters}
          errors={fieldErrors}
          workspaces={workspaces.data ?? []}
          members={members.data ?? []}
        />
      </FiltersPanel>
      {/* Outside the list: the outcome of a bulk action stays on screen when the list empties because of it. */}
      <BulkActionBar
        selection={selection}
        onSelectionChange={setSelection}
        filter={searchFilter}
        offerAllMatching={allOnPage && requests.hasNextPage}
        labels={labels}
      />
      <section aria-label="Requests" aria-busy={requests.isFetching}>
        {!validation.ok ? null : requests.isPending ? (
          <Loading label="Loading requests…" />
        ) : requests.isError && rows.length === 0 ? (
          <ErrorState error={requests.error} onRetry={() => void requests.refetch()} />
        ) : rows.length === 0 ? (
          hasFilters(filters) ? (
            <Empty title="No request matches these filters">
              <p>
                The identifier search is exact (after trimming spaces).{' '}
                <button type="button" className="link-button" onClick={() => setFilters({})}>
                  Clear the filters
                </button>
              </p>
            </Empty>
          ) : (
            <Empty title="No deletion requests yet">
              <p>
                <Link to="/requests/new">Create one here</Link>, or send <code>POST /api/public/deletion-requests</code>{' '}
                with a <Link to="/settings/tokens">personal access token</Link>.
              </p>
            </Empty>
          )
        ) : (
          <>
            <LiveIndicator query={requests} intervalMs={LIVE_REFRESH_MS} />
            <RequestsTable rows={rows} selection={selection} onSelectionChange={setSelection} />
            <div className="pager">
              {requests.hasNextPage ? (
                <button
                  type="button"
                  className="button"
                  onClick={() => void requests.fetchNextPage()}
                  disabled={requests.isFetchingNextPage}
                >
                  {requests.isFetchingNextPage ? 'Loading…' : 'Load more'}
                </button>
              ) : (
                <span className="muted small">
                  {rows.length} request{rows.length === 1 ? '' : 's'} shown · end of list
                </span>
              )}
            </div>
          </>
        )}
      </section>
    </>
  );
}

const PHONE = '(max-width: 600px)';
const subscribePhone = (listener: () => void) => {
  const query = window.matchMedia(PHONE);
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
};

const activeFilterCount = (filters: RequestFilters) => Object.keys(filters).length;

/** On a phone the filters start folded under one line (they would fill the first screen); elsewhere they are always open. */
function FiltersPanel({
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

function Filters(props: {
  filters: RequestFilters;
  onChange: (next: RequestFilters) => void;
  errors: Record<string, string>;
  workspaces: { id: string; name: string }[];
  members: { id: string; name: string; email: string }[];
}) {
  const { filters, onChange, errors } = props;
  const [identifier, setIdentifier] = useState(filters.identifier ?? '');
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
          label="Created from"
          type="date"
          value={filters.from ?? ''}
          onChange={(e) => onChange({ ...filters, from: e.target.value || undefined })}
          error={errors.createdFrom}
        />
        <TextField
          label="Created to"
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
        </SelectField>
        <SelectField
          label="Sort by"
          value={filters.sort ?? ''}
          onChange={(e) => onChange({ ...filters, sort: e.target.value === 'due' ? 'due' : undefined })}
        >
          <option value="">Newest first</option>
          <option value="due">Nearest deadline first</option>
        </SelectField>
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
    </form>
  );
}

/** The header's box: ticks (or clears) every row on screen; shows "some" while only part of them are ticked. */
function SelectPage({
  rows,
  selection,
  onSelectionChange,
}: {
  rows: RequestRow[];
  selection: Selection;
  onSelectionChange: (next: Selection) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  const ticked = rows.filter((row) => selection.ids.has(row.id)).length;
  const all = selection.allMatching || (rows.length > 0 && ticked === rows.length);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = !all && ticked > 0;
  }, [all, ticked]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label="Select all requests on this page"
      checked={all}
      onChange={(event) =>
        onSelectionChange({
          ids: event.target.checked ? new Set(rows.map((row) => row.id)) : new Set(),
          allMatching: false,
        })
      }
    />
  );
}

function RequestsTable({
  rows,
  selection,
  onSelectionChange,
}: {
  rows: RequestRow[];
  selection: Selection;
  onSelectionChange: (next: Selection) => void;
}) {
  const toggle = (id: string, on: boolean) => {
    // Unticking one row of "all matching" keeps the other rows on screen ticked.
    const ids = new Set(selection.allMatching ? rows.map((row) => row.id) : selection.ids);
    if (on) ids.add(id);
    else ids.delete(id);
    onSelectionChange({ ids, allMatching: false });
  };
  return (
    <div className="table-wrap">
      {/* On a phone the header row is hidden, and its box with it: the same box, labelled, above the cards. */}
      <label className="select-page">
        <SelectPage rows={rows} selection={selection} onSelectionChange={onSelectionChange} />
        Select all on this page
      </label>
      <table className="table responsive-table requests-table">
        <thead>
          <tr>
            <th scope="col" className="select-cell">
              <SelectPage rows={rows} selection={selection} onSelectionChange={onSelectionChange} />
            </th>
            <th scope="col">Identifier</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Due</th>
            <th scope="col">Workspace</th>
            <th scope="col">Created</th>
            <th scope="col">Created by</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const statuses = (row.integrationRequests ?? []).map((ir) => ir.status);
            return (
              <tr key={row.id} data-request-id={row.id}>
                <td data-label="Select" className="select-cell">
                  <input
                    type="checkbox"
                    aria-label={`Select request ${row.maskedIdentifier ?? row.id}`}
                    checked={selection.allMatching || selection.ids.has(row.id)}
                    onChange={(event) => toggle(row.id, event.target.checked)}
                  />
                </td>
                <td data-label="Identifier">
                  {row.maskedIdentifier === null ? (
                    <Link to={`/requests/${row.id}`} className="mono truncate identifier-link">
                      (deleted by retention)
                    </Link>
                  ) : (
                    <RevealableIdentifier
                      requestId={row.id}
                      masked={row.maskedIdentifier}
                      hashed={row.hashed}
                      linkToRequest
                    />
                  )}
                </td>
                <td data-label="Status">
                  <StatusBadge status={row.status} />
                </td>
                <td data-label="Progress">
                  <div>
                    <SegmentedStatusBar statuses={statuses} />
                    <span className="muted small">{progressSummary(statuses)}</span>
                  </div>
                </td>
                <td data-label="Due">
                  <DueDate dueAt={row.dueAt} status={row.status} regulation={row.regulation} />
                </td>
                <td data-label="Workspace">{row.workspaceName}</td>
                <td data-label="Created">
                  <time dateTime={row.createdAt} title={formatDateTime(row.createdAt)}>
                    {formatRelative(row.createdAt)}
                  </time>
                </td>
                <td data-label="Created by">
                  <div>
                    {row.createdByName ?? '—'}
                    <span className="muted small block">{row.channel === 'API' ? 'via API' : 'in dashboard'}</span>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
