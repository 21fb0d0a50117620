import { useMutation, useQueryClient } from '@tanstack/react-query';
import { AuditEntryBody } from './audit-entry';
import { toDisplayError } from '../lib/errors';
import { useTRPC, type RouterOutputs } from '../trpc';

type Detail = RouterOutputs['dashboard']['requestDetail'];

/**
 * A request's audit trail as the server sends it: every identifier of the request masked in the
 * summaries and recorded exchanges. "Show exchanges unmasked" asks the server for them as
 * recorded (it writes who did in this trail); entries recorded after that stay masked.
 */
export function AuditTrailSection({ request }: { request: Detail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const reveal = useMutation(
    trpc.dashboard.revealAuditTrail.mutationOptions({
      // The reveal is in the request's audit trail now.
      onSuccess: () =>
        queryClient.invalidateQueries({
          queryKey: trpc.dashboard.requestDetail.queryKey({ deletionRequestId: request.id }),
        }),
    }),
  );
  const revealed = new Map((reveal.data?.entries ?? []).map((entry) => [entry.id, entry]));
  const namesById = new Map(request.integrationRequests.map((ir) => [ir.id, ir.name]));
  return (
    <section aria-labelledby="timeline-heading" className="stack">
      <h2 id="timeline-heading">Audit trail</h2>
      <p className="small row">
        <a href={`/api/downloads/requests/${request.id}/audit-trail.csv`} download>
          Download the whole audit trail (CSV)
        </a>
        {request.hashed || request.auditTrail.length === 0 ? null : reveal.isSuccess ? (
          <button type="button" className="link-button small" onClick={() => reveal.reset()}>
            Mask exchanges again
          </button>
        ) : (
          <button
            type="button"
            className="link-button small"
            disabled={reveal.isPending}
            onClick={() => reveal.mutate({ deletionRequestId: request.id })}
            title="Shows the identifiers in the recorded exchanges; this is recorded in the audit log"
          >
            {reveal.isPending ? 'Unmasking…' : 'Show exchanges unmasked'}
          </button>
        )}
      </p>
      {reveal.isError ? (
        <p className="form-error small" role="alert">
          {toDisplayError(reveal.error).message}
        </p>
      ) : reveal.isSuccess ? (
        <p className="muted small" role="status">
          Identifiers are shown in full in the entries below; this was recorded in the audit trail.
        </p>
      ) : (
        <p className="muted small">Identifiers of the person are masked in the recorded exchanges.</p>
      )}
      {request.auditTrail.length === 0 ? (
        <p className="muted">Nothing recorded yet.</p>
      ) : (
        <ol className="timeline">
          {request.auditTrail.map((entry) => (
            <li key={entry.id} className="timeline-item">
              <AuditEntryBody
                entry={{ ...entry, ...revealed.get(entry.id) }}
                context={entry.integrationRequestId ? namesById.get(entry.integrationRequestId) : undefined}
              />
            </li>
          ))}
        </ol>
      )}
      {request.auditTrailTruncated ? (
        <p className="muted small">Only the first 500 entries are shown; the CSV download has them all.</p>
      ) : null}
    </section>
  );
}
