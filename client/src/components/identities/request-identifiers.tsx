import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toDisplayError } from '../../lib/errors';
import { useTRPC } from '../../trpc';

/** Where an identifier came from, in words. */
const sourceLabel = (source: string) =>
  source === 'request' ? 'Given with the request' : `Found by the lookup “${source}”`;

/**
 * Every identifier of the request's subject, masked, each with its type and where it came
 * from; "Reveal" shows one in full and is recorded in the audit trail.
 */
export function RequestIdentifiers({ deletionRequestId }: { deletionRequestId: string }) {
  const trpc = useTRPC();
  const identifiers = useQuery(trpc.identities.requestIdentifiers.queryOptions({ deletionRequestId }));
  if (!identifiers.data || identifiers.data.length === 0) return null;
  return (
    <section aria-labelledby="identifiers-heading" className="stack">
      <h2 id="identifiers-heading">Identifiers</h2>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Value</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {identifiers.data.map((identifier) => (
              <tr key={identifier.id}>
                <td>
                  {identifier.type ?? 'untyped'}
                  {identifier.primary ? <span className="muted small"> (primary)</span> : null}
                </td>
                <td>
                  <RevealableValue
                    deletionRequestId={deletionRequestId}
                    identifierId={identifier.id}
                    masked={identifier.maskedValue}
                    tag={identifier.tag}
                    what={identifier.type ?? 'untyped identifier'}
                  />
                </td>
                <td>{sourceLabel(identifier.source)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function RevealableValue({
  deletionRequestId,
  identifierId,
  masked,
  tag,
  what,
}: {
  deletionRequestId: string;
  identifierId: string;
  masked: string | null;
  tag: string | null;
  what: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const reveal = useMutation(
    trpc.identities.revealRequestIdentifier.mutationOptions({
      onSuccess: () =>
        queryClient.invalidateQueries({
          queryKey: trpc.dashboard.requestDetail.queryKey({ deletionRequestId }),
        }),
    }),
  );
  if (masked === null) return <span className="muted">Removed by the retention policy</span>;
  const revealed = reveal.data?.value ?? null;
  return (
    <span className="identifier-cell">
      <span className="mono">{revealed ?? masked}</span>
      {tag && !revealed ? <span className="mono muted small nowrap">#{tag}</span> : null}
      {revealed ? (
        <button
          type="button"
          className="link-button small"
          onClick={() => reveal.reset()}
          aria-label={`Mask the ${what} again`}
        >
          Mask
        </button>
      ) : (
        <button
          type="button"
          className="link-button small"
          disabled={reveal.isPending}
          onClick={() => reveal.mutate({ deletionRequestId, identifierId })}
          title="Shows the full identifier; this is recorded in the audit log"
          aria-label={`Show the ${what} in full`}
        >
          {reveal.isPending ? 'Showing…' : 'Show'}
        </button>
      )}
      {reveal.isError ? (
        <span className="form-error small" role="alert">
          {toDisplayError(reveal.error).message}
        </span>
      ) : null}
    </span>
  );
}
