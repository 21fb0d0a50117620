import { useQuery } from '@tanstack/react-query';
import { formatTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC, type RouterOutputs } from '../trpc';
import { ErrorState } from './states';

export type AuditChainStatus = RouterOutputs['dashboard']['verifyAuditChain'];

const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/** The organization's audit chain check, run when the screen opens and on "Verify again". */
export function AuditChainStatusPanel() {
  const trpc = useTRPC();
  // Verification walks the whole chain: not on every window focus.
  const chain = useQuery(trpc.dashboard.verifyAuditChain.queryOptions(undefined, { refetchOnWindowFocus: false }));
  if (chain.isPending)
    return (
      <div className="callout row" role="status">
        <span className="spinner" aria-hidden="true" />
        Verifying the audit chain…
      </div>
    );
  if (chain.isError)
    return (
      <ErrorState
        title="The audit chain could not be verified"
        error={chain.error}
        onRetry={() => void chain.refetch()}
      />
    );
  return (
    <AuditChainStatusLine status={chain.data} verifying={chain.isFetching} onVerify={() => void chain.refetch()} />
  );
}

/** One line when the chain verifies; the first broken entry and why when it does not. */
export function AuditChainStatusLine({
  status,
  verifying,
  onVerify,
}: {
  status: AuditChainStatus;
  verifying: boolean;
  onVerify: () => void;
}) {
  const zone = useTimeZoneChoice();
  const verifyAgain = (
    <button type="button" className="button button-small" onClick={onVerify} disabled={verifying}>
      {verifying ? 'Verifying…' : 'Verify again'}
    </button>
  );
  const checked = <span className="muted small">checked {formatTime(status.checkedAt, zone)}</span>;
  if (!status.firstBreak)
    return (
      <div className="callout callout-success row wrap chain-status" role="status">
        <span className="badge badge-success">Verified</span>
        <span>
          Audit chain verified: {entries(status.verifiedEntries)} sealed, {status.unsealedEntries} awaiting sealing.
          {status.droppedEntries > 0 &&
            ` ${entries(status.droppedEntries)} older than the audit log retention dropped; the chain is verified from where they ended.`}
        </span>
        {checked}
        {verifyAgain}
      </div>
    );
  const { entryId, chainSeq, reason } = status.firstBreak;
  return (
    <div className="callout callout-danger row wrap chain-status" role="alert">
      <span className="badge badge-failed">Does not verify</span>
      <span>
        <strong>Audit chain broken at entry {entryId}</strong> (chain position {chainSeq}): {reason}. It was changed
        outside the service; entries from there on are not covered by the chain. {entries(status.verifiedEntries)}{' '}
        before it verified, {status.unsealedEntries} awaiting sealing.
      </span>
      {checked}
      {verifyAgain}
    </div>
  );
}
