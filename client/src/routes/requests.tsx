import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import {
  checkRequestFilters,
  filtersFromSearchParams,
  filtersToSearchParams,
  hasFilters,
  toSearchFilter,
  type RequestFilters,
  type RequestFiltersState,
} from '../lib/request-filters';
import { LIVE_REFRESH_MS, requestListQueries } from '../lib/request-queries';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { LiveIndicator } from '../components/live-indicator';
import { BulkActionBar, EMPTY_SELECTION, type Selection } from '../components/bulk-actions';
import { useTRPC } from '../trpc';
import { activeFilterCount, Filters, FiltersPanel } from '../components/request-filters-form';
import { RequestsTable } from '../components/requests-table';

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

/**
 * `firstRows`: draw only this many rows (the server's copy of the screen, entry-server.tsx, which
 * stands for the first screen until the app, with every row, takes over).
 */
export function Component({ firstRows }: { firstRows?: number } = {}) {
  const trpc = useTRPC();
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const zone = useTimeZoneChoice();
  const filters = useMemo(
    () => filtersFromSearchParams(params, location.state as RequestFiltersState | null),
    [params, location.state],
  );
  const setFilters = (next: RequestFilters) =>
    setParams(filtersToSearchParams(next), {
      replace: true,
      state: next.identifier ? ({ identifier: next.identifier } satisfies RequestFiltersState) : null,
    });

  // Its days are UTC days when the viewer shows times in UTC, and the list follows a switch.
  const searchFilter = toSearchFilter(filters, zone);
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
  const drawn = firstRows !== undefined && rows.length > firstRows ? rows.slice(0, firstRows) : rows;

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
                The identifier search matches a whole identifier of a request (emails without regard to case, phone
                numbers however spaced).{' '}
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
            {filters.identifier && rows[0] ? (
              <p className="small">
                <Link to={`/requests/${rows[0].id}/person`}>All requests for this person</Link>
              </p>
            ) : null}
            <RequestsTable rows={drawn} selection={selection} onSelectionChange={setSelection} />
            <div className="pager">
              {drawn.length < rows.length ? (
                <span className="muted small">Loading the rest of the list…</span>
              ) : requests.hasNextPage ? (
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
