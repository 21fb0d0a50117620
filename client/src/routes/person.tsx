import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { PageHeader } from '../components/shell';
import { ErrorState, Loading } from '../components/states';
import { StatusBadge } from '../components/status';
import { formatDate, formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC, type RouterOutputs } from '../trpc';

type PersonRequest = RouterOutputs['dashboard']['personRequests']['requests'][number];

// The page is named by one of the person's requests: an identifier is in no URL and no title.
const TITLE = 'All requests for this person';

/**
 * Every request of the person one request is for, across the organization's workspaces: those
 * sharing any identifier with it (emails without case, phones in E.164), grouped by workspace.
 */
export function Component() {
  const { requestId = '' } = useParams();
  const trpc = useTRPC();
  const person = useQuery(trpc.dashboard.personRequests.queryOptions({ deletionRequestId: requestId }));
  const breadcrumb = (
    <p className="breadcrumb">
      <Link to="/requests">Requests</Link> / <Link to={`/requests/${requestId}`}>{requestId}</Link> / Person
    </p>
  );
  if (person.isPending)
    return (
      <>
        {breadcrumb}
        <PageHeader title={TITLE} />
        <Loading />
      </>
    );
  if (person.isError)
    return (
      <>
        {breadcrumb}
        <PageHeader title={TITLE} />
        <ErrorState error={person.error} onRetry={() => void person.refetch()} />
      </>
    );
  const { identifiers, requests, truncated } = person.data;
  const byWorkspace = new Map<string, PersonRequest[]>();
  for (const request of requests) {
    const group = byWorkspace.get(request.workspaceId);
    if (group) group.push(request);
    else byWorkspace.set(request.workspaceId, [request]);
  }
  return (
    <>
      {breadcrumb}
      <PageHeader
        title={TITLE}
        description={`${requests.length} request${requests.length === 1 ? '' : 's'} in ${byWorkspace.size} workspace${byWorkspace.size === 1 ? '' : 's'}, matched by any identifier of request ${requestId} (emails without regard to case, phone numbers in E.164).`}
      />
      {identifiers.length > 0 ? (
        <section className="card" aria-labelledby="person-identifiers-heading">
          <h2 id="person-identifiers-heading">Identifiers of request {requestId}</h2>
          <dl className="facts facts-grid">
            {identifiers.map((identifier, index) => (
              <div key={index}>
                <dt>
                  {identifier.type ?? 'untyped'}
                  {identifier.primary ? ' (primary)' : ''}
                </dt>
                <dd className="mono">{identifier.maskedValue ?? '(removed by retention)'}</dd>
              </div>
            ))}
          </dl>
        </section>
      ) : null}
      {[...byWorkspace.values()].map((group) => (
        <WorkspaceRequests key={group[0]!.workspaceId} requests={group} anchorId={requestId} />
      ))}
      {truncated ? <p className="muted small">Only the {requests.length} most recent requests are shown.</p> : null}
    </>
  );
}

function WorkspaceRequests({ requests, anchorId }: { requests: PersonRequest[]; anchorId: string }) {
  const zone = useTimeZoneChoice();
  const name = requests[0]!.workspaceName;
  const headingId = `person-workspace-${requests[0]!.workspaceId}`;
  return (
    <section className="stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Workspace {name}</h2>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Request id</th>
              <th scope="col">Identifier</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Deadline</th>
              <th scope="col">Completed</th>
            </tr>
          </thead>
          <tbody>
            {requests.map((request) => (
              <tr key={request.id}>
                <td>
                  <Link to={`/requests/${request.id}`} className="mono">
                    {request.id}
                  </Link>
                  {request.id === anchorId ? <span className="muted small"> (this request)</span> : null}
                </td>
                <td className="mono">{request.maskedIdentifier ?? '(deleted by retention)'}</td>
                <td>
                  <StatusBadge status={request.status} />
                </td>
                <td>{formatDateTime(request.createdAt, zone)}</td>
                <td>{request.dueAt ? formatDate(request.dueAt, zone) : '—'}</td>
                <td>{request.completedAt ? formatDateTime(request.completedAt, zone) : 'Not yet'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
