import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { AuditChainStatusPanel } from '../components/audit-chain-status';
import { AuditEntryBody } from '../components/audit-entry';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, Loading } from '../components/states';
import { useTRPC } from '../trpc';

export function Component() {
  const trpc = useTRPC();
  const me = useMe();
  const log = useInfiniteQuery(
    trpc.dashboard.auditLog.infiniteQueryOptions({ limit: 50 }, { enabled: me.isAdmin, getNextPageParam: (last) => last.nextCursor }),
  );
  const header = <PageHeader title="Audit log" description="Who did what and when in this organization, newest first." />;
  if (!me.isAdmin)
    return (
      <>
        {header}
        <p className="callout">Only owners and admins can read the organization audit log.</p>
      </>
    );
  const entries = log.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      {header}
      <AuditChainStatusPanel />
      {log.isPending ? (
        <Loading />
      ) : log.isError ? (
        <ErrorState error={log.error} onRetry={() => void log.refetch()} />
      ) : entries.length === 0 ? (
        <Empty title="Nothing recorded yet" />
      ) : (
        <>
          <ol className="timeline">
            {entries.map((entry) => (
              <li key={entry.id} className="timeline-item">
                <AuditEntryBody entry={entry} />
                {entry.deletionRequestId ? (
                  <Link to={`/requests/${entry.deletionRequestId}`} className="small">
                    Open the request
                  </Link>
                ) : null}
              </li>
            ))}
          </ol>
          <div className="pager">
            {log.hasNextPage ? (
              <button type="button" className="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
                {log.isFetchingNextPage ? 'Loading…' : 'Load older entries'}
              </button>
            ) : (
              <span className="muted small">Beginning of the log</span>
            )}
          </div>
        </>
      )}
    </>
  );
}
