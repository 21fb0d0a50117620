import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../lib/errors';
import { formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC } from '../trpc';
import { endOfViewerDay, viewerToday } from '../lib/viewer-days';
import { ConfirmDialog } from './dialog';

/**
 * Corrects a recorded confirmation of receipt: the day it was really sent, or withdrawn when it
 * was not (the receipt is then to confirm again), with a reason; owners and admins only.
 */
export function ReceiptCorrectionDialog({
  open,
  deletionRequestId,
  confirmedAt,
  onClose,
}: {
  open: boolean;
  deletionRequestId: string;
  confirmedAt: string;
  onClose: () => void;
}) {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [notSent, setNotSent] = useState(false);
  const [sentOn, setSentOn] = useState('');
  const [reason, setReason] = useState('');
  const close = () => {
    setNotSent(false);
    setSentOn('');
    setReason('');
    onClose();
  };
  const correct = useMutation(
    trpc.deadlines.correctReceiptConfirmation.mutationOptions({
      onSuccess: async () => {
        close();
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
      },
    }),
  );
  return (
    <ConfirmDialog
      open={open}
      title="Correct the confirmation of receipt"
      confirmLabel={notSent ? 'Withdraw the record' : 'Correct the record'}
      cancelLabel="Keep the record"
      busy={correct.isPending}
      error={correct.error ? toDisplayError(correct.error).message : null}
      confirmDisabled={(!notSent && !sentOn) || !reason.trim()}
      onConfirm={() =>
        correct.mutate({
          deletionRequestId,
          confirmedAt: notSent ? null : endOfViewerDay(sentOn, zone),
          reason: reason.trim(),
        })
      }
      onCancel={() => {
        correct.reset();
        close();
      }}
    >
      <p>
        The record says the subject was told on {formatDateTime(confirmedAt, zone)}. Give the day it was really sent, or
        withdraw the record if it was not sent: the request is then back among the receipts to confirm. The reason and
        both records are kept in the audit trail.
      </p>
      <label className="checkbox-label">
        <input type="checkbox" checked={notSent} onChange={(e) => setNotSent(e.target.checked)} /> It was not sent
        (withdraw the record)
      </label>
      {notSent ? null : (
        <label className="field">
          <span className="field-label">Really sent on</span>
          <input
            type="date"
            name="sentOn"
            value={sentOn}
            max={viewerToday(zone)}
            onChange={(e) => setSentOn(e.target.value)}
            required
          />
        </label>
      )}
      <label className="field">
        <span className="field-label">Reason for the correction</span>
        <textarea
          name="reason"
          rows={2}
          value={reason}
          maxLength={500}
          onChange={(e) => setReason(e.target.value)}
          required
        />
      </label>
    </ConfirmDialog>
  );
}
