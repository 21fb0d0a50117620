import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { toDisplayError } from '../lib/errors';
import { useTRPC } from '../trpc';

/**
 * A subject identifier as the dashboard shows it: masked (`pa***er@e***e.com`, with the
 * server's keyed tag that tells alike-looking ones apart) until the viewer presses "Reveal",
 * which asks the server for it (and the server records who did in the audit trail). "Hide"
 * masks it again.
 */
export function RevealableIdentifier({
  requestId,
  masked,
  tag = null,
  hashed = false,
  linkToRequest = false,
}: {
  requestId: string;
  masked: string;
  tag?: string | null;
  hashed?: boolean;
  linkToRequest?: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const reveal = useMutation(
    trpc.dashboard.revealIdentifier.mutationOptions({
      // The reveal is in the request's audit trail now.
      onSuccess: () =>
        queryClient.invalidateQueries({
          queryKey: trpc.dashboard.requestDetail.queryKey({ deletionRequestId: requestId }),
        }),
    }),
  );
  const revealed = reveal.data?.identifier ?? null;
  const shown = revealed ?? masked;
  // Answered, but nothing to show: the retention policy removed it since the list was loaded.
  const gone = reveal.isSuccess && revealed === null;
  return (
    <span className="identifier-cell">
      {linkToRequest ? (
        <Link to={`/requests/${requestId}`} className="mono truncate identifier-link">
          {shown}
        </Link>
      ) : (
        <span className="mono">{shown}</span>
      )}
      {tag && !revealed ? <IdentifierTag tag={tag} /> : null}
      {hashed ? null : revealed ? (
        <button type="button" className="link-button small" onClick={() => reveal.reset()}>
          Hide
        </button>
      ) : (
        <button
          type="button"
          className="link-button small"
          disabled={reveal.isPending}
          onClick={() => reveal.mutate({ deletionRequestId: requestId })}
          title="Shows the full identifier; this is recorded in the audit log"
        >
          {reveal.isPending ? 'Revealing…' : 'Reveal'}
        </button>
      )}
      {reveal.isError ? (
        <span className="form-error small" role="alert">
          {toDisplayError(reveal.error).message}
        </span>
      ) : gone ? (
        <span className="muted small" role="status">
          The identifier is no longer stored (retention policy)
        </span>
      ) : null}
    </span>
  );
}

/** The keyed tag beside a masked identifier: the same tag, the same person (without showing who). */
function IdentifierTag({ tag }: { tag: string }) {
  return (
    <span
      className="mono muted small nowrap"
      title="Tag of the identifier: the same identifier always has the same tag"
    >
      #{tag}
    </span>
  );
}
