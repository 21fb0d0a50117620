import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { AuditTrailSection } from '../components/audit-trail-section';
import { CopyButton } from '../components/copy-button';
import { DeadlinePanel } from '../components/deadline-panel';
import { ReappearedPanel } from '../components/reappeared-panel';
import { IntegrationRequestActions, RequestActions } from '../components/request-actions';
import { RevealableIdentifier } from '../components/revealable-identifier';
import { RequestIdentifiers } from '../components/identities/request-identifiers';
import { RequestManualTasks } from '../components/manual-tasks/request-tasks';
import { PageHeader } from '../components/shell';
import { ErrorState, Loading } from '../components/states';
import { SegmentedStatusBar, StatusBadge } from '../components/status';
import { formatDateTime, formatRelative } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { inDisplayOrder, isActive, progressSummary, requestStatusDescription, STATUS_DESCRIPTION } from '../lib/status';
import { useTRPC, type RouterOutputs } from '../trpc';
import { integrationTypeLabel } from '@shared/integrations/labels';
import { integrationCatalogue } from '@shared/integrations/catalogue';

type Detail = RouterOutputs['dashboard']['requestDetail'];
type IntegrationRequest = Detail['integrationRequests'][number];

export const DETAIL_REFRESH_MS = 3_000;

export function Component() {
  const zone = useTimeZoneChoice();
  const { requestId = '' } = useParams();
  const trpc = useTRPC();
  const detail = useQuery(
    trpc.dashboard.requestDetail.queryOptions(
      { deletionRequestId: requestId },
      // Poll while anything is still moving; a finished request stops polling.
      {
        refetchInterval: (query) =>
          query.state.data &&
          !isActive(query.state.data.status) &&
          !query.state.data.integrationRequests.some((ir) => isActive(ir.status))
            ? false
            : DETAIL_REFRESH_MS,
      },
    ),
  );
  if (detail.isPending)
    return (
      <>
        <PageHeader title="Request" documentTitle={`Request ${requestId}`} />
        <Loading />
      </>
    );
  if (detail.isError)
    return (
      <>
        <PageHeader title="Request" documentTitle={`Request ${requestId}`} />
        <ErrorState error={detail.error} onRetry={() => void detail.refetch()} />
        <p>
          <Link to="/requests">Back to requests</Link>
        </p>
      </>
    );
  const request = detail.data;
  const integrationRequests = inDisplayOrder(request.integrationRequests);
  const statuses = request.integrationRequests.map((ir) => ir.status);
  return (
    <>
      <p className="breadcrumb">
        <Link to="/requests">Requests</Link> / <span className="mono">{request.id}</span>
      </p>
      <PageHeader
        documentTitle={`Request ${request.id}`}
        title={
          request.maskedIdentifier === null ? (
            '(identifier deleted by retention)'
          ) : (
            <RevealableIdentifier
              requestId={request.id}
              masked={request.maskedIdentifier}
              tag={request.identifierTag}
              hashed={request.hashed}
            />
          )
        }
      />
      <ReappearedPanel deletionRequestId={request.id} integrationRequests={request.integrationRequests} />
      <section className="card summary-card" aria-label="Summary">
        <div className="summary-status">
          <StatusBadge status={request.status} />
          <span>{request.statusReason ?? requestStatusDescription(request.status, statuses.length)}</span>
        </div>
        <SegmentedStatusBar statuses={statuses} />
        <p className="muted small">{progressSummary(statuses)}</p>
        <RequestActions request={request} />
        <dl className="facts facts-grid">
          <div>
            <dt>Request id</dt>
            <dd>
              <span className="mono">{request.id}</span> <CopyButton value={request.id} />
            </dd>
          </div>
          <div>
            <dt>Person</dt>
            <dd>
              <Link to={`/requests/${request.id}/person`}>All requests for this person</Link>
            </dd>
          </div>
          <div>
            <dt>Workspace</dt>
            <dd>{request.workspaceName}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              {formatDateTime(request.createdAt, zone)} by {request.createdByName ?? 'a former member'}{' '}
              {request.channel === 'API'
                ? request.createdWithToken
                  ? 'with an API token'
                  : 'via API'
                : 'in the dashboard'}
            </dd>
          </div>
          {request.receivedAt !== request.createdAt ? (
            <div>
              <dt>Received</dt>
              <dd>{formatDateTime(request.receivedAt, zone)} (the deadline runs from then)</dd>
            </div>
          ) : null}
          <div>
            <dt>Completed</dt>
            <dd>{request.completedAt ? formatDateTime(request.completedAt, zone) : 'Not yet'}</dd>
          </div>
          {request.hashed ? (
            <div>
              <dt>Identifier</dt>
              <dd>Hashed by the retention policy; the original cannot be shown.</dd>
            </div>
          ) : null}
        </dl>
      </section>

      <DeadlinePanel request={request} />

      <RequestIdentifiers deletionRequestId={request.id} />

      <section aria-labelledby="integrations-heading" className="stack">
        <h2 id="integrations-heading">Integrations</h2>
        {request.integrationRequests.length === 0 ? (
          <p className="card muted">
            The workspace had no enabled integration when this request was created, so there was nothing to delete
            anywhere.
          </p>
        ) : (
          <div className="cards-grid">
            {integrationRequests.map((ir) => (
              <IntegrationRequestCard key={ir.id} deletionRequestId={request.id} ir={ir} />
            ))}
          </div>
        )}
      </section>

      <RequestManualTasks deletionRequestId={request.id} />

      <AuditTrailSection request={request} />
    </>
  );
}

function IntegrationRequestCard({ deletionRequestId, ir }: { deletionRequestId: string; ir: IntegrationRequest }) {
  const zone = useTimeZoneChoice();
  return (
    <article className="card integration-request" aria-label={ir.name} data-status={ir.status}>
      <header className="row space-between">
        <div>
          <h3>{ir.name}</h3>
          <span className="muted small">{integrationTypeLabel(ir.type)}</span>
        </div>
        <StatusBadge status={ir.status} />
      </header>
      <p className="muted small">{STATUS_DESCRIPTION[ir.status]}</p>
      {ir.lastError ? (
        <div className="callout callout-danger">
          <strong>What went wrong</strong>
          <p>{ir.lastError}</p>
        </div>
      ) : null}
      <dl className="facts">
        {isActive(ir.status) ? (
          <div>
            <dt>Typical time</dt>
            <dd>{integrationCatalogue[ir.type].completion}</dd>
          </div>
        ) : null}
        <div>
          <dt>Attempts</dt>
          <dd>{ir.totalAttempts}</dd>
        </div>
        <div>
          <dt>Configuration</dt>
          <dd>{ir.configTakenAt ? `Current at retry, ${formatDateTime(ir.configTakenAt, zone)}` : 'As submitted'}</dd>
        </div>
        <div>
          <dt>Tracking id</dt>
          <dd className="mono">{ir.trackingId ?? '—'}</dd>
        </div>
        {ir.startedAt ? (
          <div>
            <dt>Started</dt>
            <dd>{formatDateTime(ir.startedAt, zone)}</dd>
          </div>
        ) : null}
        {ir.completedAt ? (
          <div>
            <dt>Completed</dt>
            <dd>{formatDateTime(ir.completedAt, zone)}</dd>
          </div>
        ) : null}
        {isActive(ir.status) && ir.nextAttemptAt ? (
          <div>
            {/* One schedule: an accepted job's next status check, or the next (re)try of the deletion. */}
            <dt>{ir.trackingId && ir.status !== 'STAGING' ? 'Next status check' : 'Next attempt'}</dt>
            <dd>{formatRelative(ir.nextAttemptAt, undefined, zone)}</dd>
          </div>
        ) : null}
      </dl>
      <IntegrationRequestActions deletionRequestId={deletionRequestId} ir={ir} />
    </article>
  );
}
