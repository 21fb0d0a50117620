import { useState } from 'react';
import { CANCEL_REASON_LABELS, CANCEL_REASONS, type CancelReason } from '@shared/cancel-reasons';
import { ConfirmDialog } from './dialog';

export interface CancelReasonChoice {
  reason: CancelReason | '';
  note: string;
}

export const NO_CANCEL_REASON: CancelReasonChoice = { reason: '', note: '' };

/** What the API is sent, once a reason is chosen (and words given for "Other"); null until then. */
export function chosenCancelReason(choice: CancelReasonChoice): { reason: CancelReason; note?: string } | null {
  const note = choice.note.trim();
  if (choice.reason === '' || (choice.reason === 'other' && !note)) return null;
  return { reason: choice.reason, ...(note ? { note } : {}) };
}

/** Why a request is closed without being fulfilled: a reason, and words (required for "Other"). */
export function CancelReasonFields({
  value,
  onChange,
}: {
  value: CancelReasonChoice;
  onChange: (next: CancelReasonChoice) => void;
}) {
  const needsNote = value.reason === 'other';
  return (
    <>
      <label className="field">
        <span className="field-label">Reason</span>
        <select
          name="cancelReason"
          value={value.reason}
          onChange={(e) => onChange({ ...value, reason: e.target.value as CancelReason | '' })}
          required
        >
          <option value="">Choose a reason…</option>
          {CANCEL_REASONS.map((reason) => (
            <option key={reason} value={reason}>
              {CANCEL_REASON_LABELS[reason]}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field-label">{needsNote ? 'Say why (required for “Other”)' : 'Note (optional)'}</span>
        <textarea
          name="cancelNote"
          rows={2}
          value={value.note}
          maxLength={500}
          onChange={(e) => onChange({ ...value, note: e.target.value })}
          required={needsNote}
        />
      </label>
    </>
  );
}

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
  const [choice, setChoice] = useState(NO_CANCEL_REASON);
  const why = chosenCancelReason(choice);
  return (
    <ConfirmDialog
      open={open}
      title="Cancel this deletion request?"
      confirmLabel="Cancel request"
      cancelLabel="Keep request"
      destructive
      busy={busy}
      error={error}
      confirmDisabled={!why}
      onCancel={onCancel}
      onConfirm={() => why && onConfirm(why)}
    >
      <p>
        Integrations that have not finished are asked to stop. Some destinations cannot cancel a deletion they have
        accepted; those keep going and are listed with the reason. The request then reads “Closed — not fulfilled”, with
        the reason you give.
      </p>
      <CancelReasonFields value={choice} onChange={setChoice} />
    </ConfirmDialog>
  );
}
