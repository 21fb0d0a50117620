import { OVERVIEW_WINDOWS } from '@shared/schemas/dashboard';
import type { RequestStatus } from '@shared/statuses';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { DueDate } from '../components/due-date';
import { Meter } from '../components/charts/meter';
import { StackedBarChart } from '../components/charts/stacked-bar-chart';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, Loading } from '../components/states';
import { SegmentedStatusBar, StatusBadge } from '../components/status';
import { formatDuration, formatPercent, formatRelative } from '../lib/format';
import { overviewTiles, requestsLink, windowFilter, type OverviewTile } from '../lib/overview-links';
import type { RequestFilters } from '../lib/request-filters';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { REQUEST_STATUSES, STATUS_COLOR, STATUS_LABEL } from '../lib/status';
import { useTRPC, type RouterOutputs } from '../trpc';
import { integrationTypeLabel } from '@shared/integrations/labels';
import { useMe } from '../components/me-context';
import { SetupChecklist } from '../components/setup-checklist';

type Overview = RouterOutputs['dashboard']['overview'];
type Window = (typeof OVERVIEW_WINDOWS)[number];

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const shortDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const formatDay = (day: string) => shortDay.format(new Date(`${day}T00:00:00Z`));

export function Component() {
  const trpc = useTRPC();
  // The days are cut in the zone the viewer shows times in: UTC days when they chose UTC.
  const timeZone = useTimeZoneChoice() === 'UTC' ? 'UTC' : browserZone;
  const [params, setParams] = useSearchParams();
  const days = (OVERVIEW_WINDOWS as readonly number[]).includes(Number(params.get('days')))
    ? (Number(params.get('days')) as Window)
    : 30;
  // Asked again on every visit (staleTime 0): requests that came in through the API since the last one count at once.
  const overview = useQuery(
    trpc.dashboard.overview.queryOptions(
      { days, timeZone },
      { refetchInterval: 15_000, staleTime: 0, placeholderData: (previous) => previous },
    ),
  );
  return (
    <>
      <PageHeader
        title="Overview"
        description="How deletion requests are doing across your organization."
        actions={
          <div className="segmented-control" role="group" aria-label="Time window">
            {OVERVIEW_WINDOWS.map((d) => (
              <button
                key={d}
                type="button"
                className="button button-small"
                aria-pressed={d === days}
                onClick={() => setParams(d === 30 ? {} : { days: String(d) }, { replace: true })}
              >
                {d} days
              </button>
            ))}
          </div>
        }
      />
      <SetupChecklist />
      {overview.isPending ? (
        <Loading />
      ) : overview.isError ? (
        <ErrorState error={overview.error} onRetry={() => void overview.refetch()} />
      ) : (
        <OverviewBody data={overview.data} />
      )}
    </>
  );
}

function OverviewBody({ data }: { data: Overview }) {
  const me = useMe();
  const zone = useTimeZoneChoice();
  return (
    <div className="stack">
      <section className="tiles" aria-label="Totals">
        {overviewTiles(data).map((tile) => (
          <Tile key={tile.label} {...tile} />
        ))}
      </section>

      {data.overdue.length + data.dueThisWeek.length + data.atRisk.length > 0 ? (
        <section className="card" aria-labelledby="deadlines">
          <h2 id="deadlines">Deadlines</h2>
          <ul className="list">
            {[
              ...data.overdue,
              ...data.dueThisWeek,
              ...data.atRisk.filter((r) => !data.dueThisWeek.some((d) => d.id === r.id)),
            ].map((request) => (
              <li key={request.id} className="list-row deadline-row">
                <StatusBadge status={request.status} />
                <Link to={`/requests/${request.id}`} className="mono truncate">
                  {request.maskedIdentifier ?? '(deleted by retention)'}
                </Link>
                <span className="mono muted small">{request.id}</span>
                <span className="muted truncate">
                  {request.atRisk ? request.riskReasons.join('; ') : request.workspaceName}
                </span>
                <DueDate dueAt={request.dueAt} status={request.status} regulation={request.regulation} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {data.total === 0 && data.needsAttentionTotal === 0 ? (
        <EmptyOverview days={data.days} />
      ) : (
        <div className="grid-2">
          <section className="card" aria-labelledby="per-day">
            <h2 id="per-day">Requests per day</h2>
            <StackedBarChart
              rows={data.perDay.map((d) => ({ label: d.day, values: d.counts }))}
              keys={REQUEST_STATUSES}
              colors={STATUS_COLOR}
              labels={STATUS_LABEL}
              formatLabel={formatDay}
              summary={`${data.total} requests over ${data.days} days`}
            />
          </section>
          <section className="card" aria-labelledby="by-status">
            <h2 id="by-status">By status</h2>
            <StatusBreakdown counts={data.byStatus} total={data.total} since={windowFilter(data)} />
          </section>
        </div>
      )}

      <section className="card" aria-labelledby="integrations">
        <h2 id="integrations">Integrations</h2>
        {data.integrations.length === 0 ? (
          <p className="muted">
            No integration requests in this window. Requests fan out to the enabled integrations of their workspace.
          </p>
        ) : (
          <IntegrationStats integrations={data.integrations} />
        )}
      </section>

      <section className="card" aria-labelledby="attention">
        <h2 id="attention">
          Needs attention <span className="count">{data.needsAttentionTotal}</span>
        </h2>
        {data.needsAttention.length === 0 ? (
          <p className="muted">Nothing has failed. Requests that fail or error show up here.</p>
        ) : (
          <ul className="list">
            {data.needsAttention.map((request) => (
              <li key={request.id} className="list-row attention-row">
                <StatusBadge status={request.status} />
                <Link to={`/requests/${request.id}`} className="mono truncate">
                  {request.maskedIdentifier ?? '(deleted by retention)'}
                </Link>
                <AttentionReason request={request} canManageIntegrations={me.isAdmin} />
                <span className="muted nowrap">{formatRelative(request.updatedAt, undefined, zone)}</span>
              </li>
            ))}
          </ul>
        )}
        {data.needsAttentionTotal > data.needsAttention.length ? (
          <p>
            <Link to={requestsLink({ statuses: ['FAILED', 'ERROR'] })}>See all {data.needsAttentionTotal}</Link>
          </p>
        ) : null}
        {data.lateManualTasks.length > 0 ? (
          <>
            <h3>Manual tasks late for the legal deadline</h3>
            <ul className="list">
              {data.lateManualTasks.map((task) => (
                <li key={task.taskId} className="list-row attention-row">
                  <Link to={`/requests/${task.deletionRequestId}`} className="mono truncate">
                    {task.integrationName}
                  </Link>
                  <span className="muted nowrap">
                    task due {task.dueAt.slice(0, 10)}, request due {task.requestDueAt.slice(0, 10)}
                  </span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
    </div>
  );
}

/** No request yet: what to do first, which depends on whether there is a workspace to send requests to. */
function EmptyOverview({ days }: { days: number }) {
  const trpc = useTRPC();
  const progress = useQuery(trpc.dashboard.setupProgress.queryOptions());
  return (
    <Empty title={`No requests in the last ${days} days`}>
      {progress.data && !progress.data.workspaceCreated ? (
        <p>
          Requests are sent to the integrations of a workspace. Start by{' '}
          <Link to="/workspaces">creating a workspace</Link>, then connect the systems that hold personal data to it.
        </p>
      ) : progress.data ? (
        <p>
          Create one with <Link to="/requests/new">Create request</Link>, or send one through the public API with a{' '}
          <Link to="/settings/tokens">personal access token</Link>.
        </p>
      ) : null}
    </Empty>
  );
}

/** Which integrations failed and why, each linked to its configuration (for those who may change it). */
function AttentionReason({
  request,
  canManageIntegrations,
}: {
  request: Overview['needsAttention'][number];
  canManageIntegrations: boolean;
}) {
  if (request.failures.length === 0)
    return <span className="muted truncate">{request.statusReason ?? request.workspaceName}</span>;
  return (
    <ul className="attention-failures">
      {request.failures.map((failure) => (
        <li key={failure.integrationRequestId}>
          {canManageIntegrations && failure.integrationId ? (
            <Link to={`/integrations/${failure.integrationId}`}>{failure.integrationName}</Link>
          ) : (
            <strong>{failure.integrationName}</strong>
          )}{' '}
          <span className="muted small">({integrationTypeLabel(failure.integrationType)})</span>
          <span className="muted block small attention-error" title={failure.error}>
            {failure.status === 'ERROR' ? 'Error' : 'Failed'}: {failure.error}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Tile({ label, value, tone, to }: OverviewTile) {
  const body = (
    <>
      <span className={`tile-value ${tone ? `tone-${tone}` : ''}`}>{value.toLocaleString()}</span>
      <span className="tile-label">{label}</span>
    </>
  );
  return (
    <Link to={to} className="tile card">
      {body}
    </Link>
  );
}

/** `since`: the window's filter, as the counts are of the window's requests. */
function StatusBreakdown({
  counts,
  total,
  since,
}: {
  counts: Record<RequestStatus, number>;
  total: number;
  since: RequestFilters;
}) {
  return (
    <ul className="breakdown">
      {REQUEST_STATUSES.map((status) => (
        <li key={status}>
          <Link to={requestsLink({ ...since, statuses: [status] })} className="breakdown-label">
            {STATUS_LABEL[status]}
          </Link>
          <Meter
            fraction={total ? counts[status] / total : 0}
            color={STATUS_COLOR[status]}
            label={STATUS_LABEL[status]}
            valueText={`${counts[status]} of ${total}`}
          />
          <span className="breakdown-value">{counts[status]}</span>
        </li>
      ))}
    </ul>
  );
}

function IntegrationStats({ integrations }: { integrations: Overview['integrations'] }) {
  const slowest = Math.max(1, ...integrations.map((i) => i.medianSeconds ?? 0));
  return (
    <div className="table-wrap">
      <table className="table integration-stats">
        <thead>
          <tr>
            <th scope="col">Integration</th>
            <th scope="col">Outcomes</th>
            <th scope="col">Success rate</th>
            <th scope="col">Median time to completion</th>
          </tr>
        </thead>
        <tbody>
          {integrations.map((i) => {
            const statuses: RequestStatus[] = [
              ...Array<RequestStatus>(i.succeeded).fill('SUCCESS'),
              ...Array<RequestStatus>(i.failed).fill('FAILED'),
              ...Array<RequestStatus>(i.canceled).fill('CANCELED'),
              ...Array<RequestStatus>(i.active).fill('PENDING'),
            ];
            return (
              <tr key={`${i.integrationId}-${i.type}`}>
                <th scope="row">
                  {i.name}
                  <span className="muted small block">
                    {integrationTypeLabel(i.type)} · {i.total} request{i.total === 1 ? '' : 's'}
                  </span>
                </th>
                <td data-label="Outcomes">
                  <SegmentedStatusBar statuses={statuses} />
                </td>
                <td data-label="Success rate">
                  <div className="meter-row">
                    <Meter
                      fraction={i.successRate ?? 0}
                      color="var(--status-success)"
                      label={`Success rate of ${i.name}`}
                      valueText={formatPercent(i.successRate)}
                    />
                    <span className="nowrap">{formatPercent(i.successRate)}</span>
                  </div>
                </td>
                <td data-label="Median time to completion">
                  <div className="meter-row">
                    <Meter
                      fraction={(i.medianSeconds ?? 0) / slowest}
                      color="var(--accent)"
                      label={`Median time to completion of ${i.name}`}
                      valueText={formatDuration(i.medianSeconds)}
                    />
                    <span className="nowrap">{formatDuration(i.medianSeconds)}</span>
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
