import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { toDisplayError } from '../lib/errors';
import { isActive } from '../lib/status';
import type { RequestStatus } from '@shared/statuses';
import { useTRPC } from '../trpc';
import { CancelRequestDialog } from './cancel-request-dialog';
import { ConfirmDialog } from './dialog';

const isRetryable = (status: RequestStatus) => status === 'FAILED' || status === 'ERROR';

type RetryConfiguration = 'submitted' | 'current';

/**
 * Retry offered twice, side by side: with the configuration frozen when the request was made, or
 * with the integration's configuration as it is now (after fixing a URL or a rule).
 */
function RetryButtons({
  subject,
  small,
  disabled,
  pending,
  onRetry,
}: {
  /** Read by screen readers after "Retry" (the integration's name), so each button names what it retries. */
  subject?: string;
  small?: boolean;
  disabled: boolean;
  /** The configuration of the retry under way, if any. */
  pending: RetryConfiguration | null;
  onRetry: (configuration: RetryConfiguration) => void;
}) {
  const size = small ? ' button-small' : '';
  const button = (configuration: RetryConfiguration, className: string, rest: string) => (
    <button type="button" className={className + size} disabled={disabled} onClick={() => onRetry(configuration)}>
      {pending === configuration ? 'Retrying…' : 'Retry'}
      {subject ? <span className="visually-hidden"> {subject}</span> : null} {rest}
    </button>
  );
  return (
    <>
      {button('submitted', small ? 'button' : 'button button-primary', 'as submitted')}
      {button('current', 'button', 'with the current configuration')}
    </>
  );
}

/** After any action the request's detail and every list are refreshed at once. */
function useRefreshRequest() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
}

function ActionMessage({ error, done }: { error: unknown; done: string | null }) {
  if (error)
    return (
      <p className="form-error" role="alert">
        {toDisplayError(error).message}
      </p>
    );
  if (done)
    return (
      <p className="muted small" role="status">
        {done}
      </p>
    );
  return null;
}

/** Retry what failed, or cancel what is still running, for the whole request. */
export function RequestActions({
  request,
}: {
  request: { id: string; status: RequestStatus; integrationRequests: { status: RequestStatus }[] };
}) {
  const trpc = useTRPC();
  const refresh = useRefreshRequest();
  const [done, setDone] = useState<string | null>(null);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const retry = useMutation(
    trpc.deletionRequests.retry.mutationOptions({ onSuccess: async () => (setDone('Retry queued.'), await refresh()) }),
  );
  const cancel = useMutation(
    trpc.deletionRequests.cancel.mutationOptions({
      onSuccess: async () => (setConfirmCancel(false), setDone('Cancel requested.'), await refresh()),
    }),
  );
  // "Retry queued." is what happened until the request's status says what came of it.
  useEffect(() => setDone(null), [request.status]);
  const canRetry = isRetryable(request.status) || request.integrationRequests.some((ir) => isRetryable(ir.status));
  const canCancel = request.integrationRequests.some((ir) => isActive(ir.status));
  if (!canRetry && !canCancel) return null;
  return (
    <div className="request-actions">
      <div className="row wrap">
        {canRetry ? (
          <RetryButtons
            disabled={retry.isPending}
            pending={retry.isPending ? (retry.variables?.configuration ?? null) : null}
            onRetry={(configuration) => (
              cancel.reset(),
              setDone(null),
              retry.mutate({ deletionRequestId: request.id, configuration })
            )}
          />
        ) : null}
        {canCancel ? (
          <button
            type="button"
            className="button button-danger-outline"
            onClick={() => (retry.reset(), cancel.reset(), setDone(null), setConfirmCancel(true))}
          >
            Cancel request
          </button>
        ) : null}
      </div>
      <ActionMessage error={retry.error} done={done} />
      <CancelRequestDialog
        open={confirmCancel}
        busy={cancel.isPending}
        error={cancel.error ? toDisplayError(cancel.error).message : null}
        onCancel={() => setConfirmCancel(false)}
        onConfirm={(why) => cancel.mutate({ deletionRequestId: request.id, ...why })}
      />
    </div>
  );
}

/** Per integration request: retry when failed; check status now or cancel while running. */
export function IntegrationRequestActions({
  deletionRequestId,
  ir,
}: {
  deletionRequestId: string;
  ir: { id: string; name: string; status: RequestStatus; trackingId: string | null };
}) {
  const trpc = useTRPC();
  const refresh = useRefreshRequest();
  const [done, setDone] = useState<string | null>(null);
  const after = (message: string) => async () => {
    setDone(message);
    await refresh();
  };
  const retry = useMutation(
    trpc.deletionRequests.retryIntegration.mutationOptions({ onSuccess: after('Retry queued.') }),
  );
  const check = useMutation(
    trpc.deletionRequests.checkStatusNow.mutationOptions({ onSuccess: after('Status check queued.') }),
  );
  const [confirmCancel, setConfirmCancel] = useState(false);
  const cancel = useMutation(
    trpc.deletionRequests.cancelIntegration.mutationOptions({
      onSuccess: async () => {
        setConfirmCancel(false);
        await after('Cancel requested.')();
      },
    }),
  );
  // The message gives way to the outcome: the card's status says what came of the action.
  useEffect(() => setDone(null), [ir.status]);
  const reset = () => {
    retry.reset();
    check.reset();
    cancel.reset();
    setDone(null);
  };
  const input = { deletionRequestId, integrationRequestId: ir.id };
  const busy = retry.isPending || check.isPending || cancel.isPending;
  if (!isRetryable(ir.status) && !isActive(ir.status)) return null;
  return (
    <div className="ir-actions">
      <div className="row wrap">
        {isRetryable(ir.status) ? (
          <RetryButtons
            small
            subject={ir.name}
            disabled={busy}
            pending={retry.isPending ? (retry.variables?.configuration ?? null) : null}
            onRetry={(configuration) => (reset(), retry.mutate({ ...input, configuration }))}
          />
        ) : null}
        {isActive(ir.status) && ir.trackingId ? (
          <button
            type="button"
            className="button button-small"
            disabled={busy}
            onClick={() => (reset(), check.mutate(input))}
          >
            Check status now<span className="visually-hidden"> for {ir.name}</span>
          </button>
        ) : null}
        {isActive(ir.status) ? (
          <button
            type="button"
            className="button button-small button-danger-outline"
            disabled={busy}
            onClick={() => (reset(), setConfirmCancel(true))}
          >
            Cancel<span className="visually-hidden"> {ir.name}</span>
          </button>
        ) : null}
      </div>
      <ActionMessage error={retry.error ?? check.error} done={done} />
      <ConfirmDialog
        open={confirmCancel}
        title={`Cancel the deletion at ${ir.name}?`}
        confirmLabel={`Cancel at ${ir.name}`}
        cancelLabel="Keep it running"
        destructive
        busy={cancel.isPending}
        error={cancel.error ? toDisplayError(cancel.error).message : null}
        onCancel={() => setConfirmCancel(false)}
        onConfirm={() => cancel.mutate(input)}
      >
        <p>
          {ir.status === 'STAGING'
            ? `Nothing has been sent to ${ir.name} yet: it will not be.`
            : `${ir.name} is asked to stop the deletion it accepted. If it cannot cancel any more, the deletion keeps going and you see why.`}{' '}
          A canceled deletion is final for this request: to delete the data at {ir.name} later, create a new request.
        </p>
      </ConfirmDialog>
    </div>
  );
}
