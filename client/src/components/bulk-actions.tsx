import type { BulkActionResult } from '@shared/schemas/bulk-actions';
import type { RequestSearchFilter } from '@shared/schemas/dashboard';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { BULK_OUTCOME_LABEL, bulkConfirmation, selectionLabel, type BulkAction } from '../lib/bulk';
import { toDisplayError } from '../lib/errors';
import { useTRPC } from '../trpc';
import { CancelReasonFields, chosenCancelReason, NO_CANCEL_REASON } from './cancel-request-dialog';
import { ConfirmDialog } from './dialog';
import { SelectField } from './field';

/** The rows ticked on the Requests screen, or every request the filter matches. */
export interface Selection {
  ids: ReadonlySet<string>;
  allMatching: boolean;
}

export const EMPTY_SELECTION: Selection = { ids: new Set(), allMatching: false };

/**
 * The bar above the list while requests are selected: how many, "select all N matching this
 * filter" once the whole page is ticked, and retry or cancel them after a confirmation that
 * says what will happen. The outcome of each request is listed afterwards.
 */
export function BulkActionBar(props: {
  selection: Selection;
  onSelectionChange: (selection: Selection) => void;
  filter: RequestSearchFilter;
  /** Every row on screen is ticked and the list goes on beyond them. */
  offerAllMatching: boolean;
  /** The short label of each request on screen (a masked identifier), to name it in the results. */
  labels: ReadonlyMap<string, string>;
}) {
  const { selection, onSelectionChange, filter } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<BulkAction | null>(null);
  const [configuration, setConfiguration] = useState<'submitted' | 'current'>('submitted');
  const [result, setResult] = useState<BulkActionResult | null>(null);
  const matching = useQuery(
    trpc.deletionRequests.countMatching.queryOptions(
      { filter },
      { enabled: props.offerAllMatching || selection.allMatching },
    ),
  );
  const done = async (answer: BulkActionResult) => {
    setConfirming(null);
    setResult(answer);
    onSelectionChange(EMPTY_SELECTION);
    await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
  };
  const retry = useMutation(trpc.deletionRequests.bulkRetry.mutationOptions({ onSuccess: done }));
  const cancel = useMutation(trpc.deletionRequests.bulkCancel.mutationOptions({ onSuccess: done }));
  const [cancelReason, setCancelReason] = useState(NO_CANCEL_REASON);
  const pending = retry.isPending || cancel.isPending;
  const mutation = confirming === 'cancel' ? cancel : retry;

  const count = selection.allMatching ? (matching.data?.count ?? 0) : selection.ids.size;
  const target = selection.allMatching ? { filter } : { deletionRequestIds: [...selection.ids] };
  const why = chosenCancelReason(cancelReason);
  const act = () =>
    confirming === 'cancel' ? why && cancel.mutate({ ...target, ...why }) : retry.mutate({ ...target, configuration });
  const confirmation = confirming ? bulkConfirmation(confirming, count) : null;
  const tooMany = matching.data?.more ?? false;

  return (
    <>
      {result ? <BulkResult result={result} labels={props.labels} onDismiss={() => setResult(null)} /> : null}
      {selection.ids.size > 0 || selection.allMatching ? (
        <div className="card bulk-bar" role="region" aria-label="Selected requests">
          <strong>{selectionLabel({ allMatching: selection.allMatching, count })}</strong>
          {props.offerAllMatching && !selection.allMatching && matching.data ? (
            tooMany ? (
              <span className="muted small">
                More than {matching.data.max} requests match this filter; narrow it to act on all of them at once.
              </span>
            ) : matching.data.count > selection.ids.size ? (
              <button
                type="button"
                className="link-button"
                onClick={() => onSelectionChange({ ids: new Set(), allMatching: true })}
              >
                Select all {matching.data.count} matching this filter
              </button>
            ) : null
          ) : null}
          <div className="row wrap bulk-bar-actions">
            <button
              type="button"
              className="button"
              disabled={pending || count === 0}
              onClick={() => (retry.reset(), setConfirming('retry'))}
            >
              Retry failed…
            </button>
            <button
              type="button"
              className="button button-danger-outline"
              disabled={pending || count === 0}
              onClick={() => (cancel.reset(), setConfirming('cancel'))}
            >
              Cancel…
            </button>
            <button type="button" className="link-button" onClick={() => onSelectionChange(EMPTY_SELECTION)}>
              Clear selection
            </button>
          </div>
        </div>
      ) : null}
      <ConfirmDialog
        open={confirmation !== null}
        title={confirmation?.title ?? ''}
        confirmLabel={confirmation?.confirmLabel ?? ''}
        cancelLabel={confirmation?.cancelLabel}
        destructive={confirming === 'cancel'}
        busy={pending}
        confirmDisabled={confirming === 'cancel' && !why}
        error={mutation.error ? toDisplayError(mutation.error).message : null}
        onCancel={() => setConfirming(null)}
        onConfirm={act}
      >
        <p>{confirmation?.body}</p>
        {confirming === 'retry' ? (
          <SelectField
            label="Configuration"
            value={configuration}
            onChange={(event) => setConfiguration(event.target.value as 'submitted' | 'current')}
          >
            <option value="submitted">As each request was submitted</option>
            <option value="current">Each integration&apos;s current configuration</option>
          </SelectField>
        ) : null}
        {confirming === 'cancel' ? <CancelReasonFields value={cancelReason} onChange={setCancelReason} /> : null}
      </ConfirmDialog>
    </>
  );
}

/** What became of each request of the last bulk action, the skipped ones with the reason. */
function BulkResult({
  result,
  labels,
  onDismiss,
}: {
  result: BulkActionResult;
  labels: ReadonlyMap<string, string>;
  onDismiss: () => void;
}) {
  const tone = result.skipped === 0 ? 'callout-success' : result.succeeded === 0 ? 'callout-warning' : '';
  return (
    <section className={`callout ${tone} bulk-result`} aria-label="Result of the bulk action">
      <p role="status">
        <strong>{result.message}.</strong>
      </p>
      {result.items.length > 0 ? (
        <ul className="list bulk-result-items">
          {result.items.map((item) => (
            <li key={item.deletionRequestId} className="list-row" data-outcome={item.outcome}>
              <span
                className={`badge badge-${item.outcome === 'skipped' ? 'staging' : item.outcome === 'retried' ? 'pending' : 'canceled'}`}
              >
                {BULK_OUTCOME_LABEL[item.outcome]}
              </span>
              <Link to={`/requests/${item.deletionRequestId}`} className="mono truncate">
                {labels.get(item.deletionRequestId) ?? item.deletionRequestId}
              </Link>
              <span className="mono muted small">{item.deletionRequestId}</span>
              {item.reason ? <span className="muted small">{item.reason}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <button type="button" className="link-button" onClick={onDismiss}>
        Dismiss
      </button>
    </section>
  );
}
