import { useState } from 'react';
import { CANCEL_REASON_LABELS, CANCEL_REASONS, type CancelReason } from '@shared/cancel-reasons';
import { ConfirmDialog } from './dialog';

/**
 * Canceling a whole request closes it without fulfilling it: the dialog asks why (the request,
 * its certificate, the export and the callbacks say it), and for words when the reason is "Other".
 */
export function CancelRequestDialog({
  open,
  busy,
  error,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: (why: { reason: CancelReason; note?: string }) => void;
}) {
  const [reason, setReason] = useState<CancelReason | ''>('');
  const [note, setNote] = useState('');
  const needsNote = reason === 'other';
  const ready = reason !== '' && (!needsNote || note.trim().length > 0);
  return (
    <ConfirmDialog
      open={open}
      title="Cancel this deletion request?"
      confirmLabel="Cancel request"
      cancelLabel="Keep request"
      destructive
      busy={busy}
      error={error}
      confirmDisabled={!ready}
      onCancel={onCancel}
      onConfirm={() => reason && onConfirm({ reason, ...(note.trim() ? { note: note.trim() } : {}) })}
    >
      <p>
        Integrations that have not finished are asked to stop. Some destinations cannot cancel a deletion they have
        accepted; those keep going and are listed with the reason. The request then reads “Closed — not fulfilled”, with
        the reason you give.
      </p>
      <label className="field">
        <span className="field-label">Reason</span>
        <select
          name="cancelReason"
          value={reason}
          onChange={(e) => setReason(e.target.value as CancelReason | '')}
          required
        >
          <option value="">Choose a reason…</option>
          {CANCEL_REASONS.map((value) => (
            <option key={value} value={value}>
              {CANCEL_REASON_LABELS[value]}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field-label">{needsNote ? 'Say why (required for “Other”)' : 'Note (optional)'}</span>
        <textarea
          name="cancelNote"
          rows={2}
          value={note}
          maxLength={500}
          onChange={(e) => setNote(e.target.value)}
          required={needsNote}
        />
      </label>
    </ConfirmDialog>
  );
}
