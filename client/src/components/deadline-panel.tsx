import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { businessDaysLeft } from '@shared/days-left';
import { deadlineLabel, receiptDueLabel } from '../lib/deadline';
import { toDisplayError } from '../lib/errors';
import { formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC } from '../trpc';
import { endOfViewerDay, viewerToday } from '../lib/viewer-days';
import { ConfirmDialog } from './dialog';
import { useMe } from './me-context';
import { ReceiptCorrectionDialog } from './receipt-correction-dialog';

/** The server's minimum for an extension's reason (extendDeadlineInputSchema), said before the button is pressed. */
const EXTENSION_REASON_MIN = 10;

interface DeadlineRequest {
  id: string;
  status: string;
  regulation: string | null;
  dueAt: string | null;
  dueExtendedAt: string | null;
  dueExtensionReason: string | null;
  receiptConfirmBy: string | null;
  receiptConfirmedAt: string | null;
  atRisk: boolean;
  riskReasons: string[];
}

const FINISHED = new Set(['SUCCESS', 'CANCELED', 'FAILED', 'ERROR']);
/** Requests the deadline no longer binds: a FAILED or ERROR one is still unfulfilled and may be extended while it is retried. */
const CLOSED = new Set(['SUCCESS', 'CANCELED']);

/** The legal deadline of one request: date, days left, risk, and the one extension its regulation allows. */
export function DeadlinePanel({ request }: { request: DeadlineRequest }) {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const reasonShort = Math.max(0, EXTENSION_REASON_MIN - reason.trim().length);
  const extend = useMutation(
    trpc.deadlines.extend.mutationOptions({
      onSuccess: async () => {
        setOpen(false);
        setReason('');
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
      },
    }),
  );
  const [confirming, setConfirming] = useState(false);
  const [confirmedOn, setConfirmedOn] = useState('');
  const [note, setNote] = useState('');
  const confirm = useMutation(
    trpc.deadlines.confirmReceipt.mutationOptions({
      onSuccess: async () => {
        setConfirming(false);
        setNote('');
        setConfirmedOn('');
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
      },
    }),
  );
  const me = useMe();
  const [correcting, setCorrecting] = useState(false);
  const finished = FINISHED.has(request.status);
  const certificate = finished ? (
    <p className="certificate-links">
      {request.status === 'SUCCESS' ? 'Certificate of deletion' : 'Deletion report'}:{' '}
      <a href={`/api/downloads/certificates/${request.id}.pdf`} download>
        Download PDF
      </a>{' '}
      ·{' '}
      <a href={`/api/downloads/certificates/${request.id}.json`} download>
        signed JSON
      </a>{' '}
      · <a href="/api/downloads/certificate-public-key.pem">public key</a>
    </p>
  ) : null;
  if (!request.dueAt)
    return certificate ? (
      <section className="card deadline-panel" aria-label="Deadline">
        {certificate}
      </section>
    ) : null;
  const label = deadlineLabel(request.dueAt, request.status);
  // Only before the deadline passes (the server refuses it after): a missed deadline stays missed.
  const canExtend =
    !request.dueExtendedAt &&
    !CLOSED.has(request.status) &&
    request.dueAt !== null &&
    new Date(request.dueAt).getTime() > Date.now();
  const canConfirm = !request.receiptConfirmedAt && request.receiptConfirmBy !== null && request.status !== 'CANCELED';
  // A recorded confirmation is a compliance record: owners and admins correct it, with a reason.
  const canCorrect = request.receiptConfirmedAt !== null && me.isAdmin;
  return (
    <section className="card deadline-panel" aria-label="Deadline">
      <dl className="facts facts-grid">
        <div>
          <dt>Deadline ({request.regulation})</dt>
          <dd>
            <time dateTime={request.dueAt}>{formatDateTime(request.dueAt, zone)}</time>{' '}
            <span className={`due-${label.tone}`} data-due-tone={label.tone}>
              · {label.text}
            </span>
          </dd>
        </div>
        {request.dueExtendedAt ? (
          <div>
            <dt>Extended</dt>
            <dd>
              {formatDateTime(request.dueExtendedAt, zone)}: {request.dueExtensionReason}
            </dd>
          </div>
        ) : null}
        {request.receiptConfirmBy || request.receiptConfirmedAt ? (
          <div>
            <dt>Receipt confirmed to the subject</dt>
            <dd>
              <ReceiptConfirmation
                by={request.receiptConfirmBy}
                at={request.receiptConfirmedAt}
                canceled={request.status === 'CANCELED'}
                zone={zone}
              />
            </dd>
          </div>
        ) : null}
        {request.atRisk ? (
          <div>
            <dt>At risk</dt>
            <dd className="due-soon">{request.riskReasons.join('; ')}</dd>
          </div>
        ) : null}
      </dl>
      {certificate}
      {canExtend || canConfirm || canCorrect ? (
        <div className="deadline-actions">
          {canConfirm ? (
            <button type="button" className="button" onClick={() => setConfirming(true)}>
              Record confirmation of receipt
            </button>
          ) : null}
          {canCorrect ? (
            <button type="button" className="button" onClick={() => setCorrecting(true)}>
              Correct the confirmation
            </button>
          ) : null}
          {canExtend ? (
            <button type="button" className="button" onClick={() => setOpen(true)}>
              Extend deadline
            </button>
          ) : null}
        </div>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title="Record the confirmation of receipt"
        confirmLabel="Record confirmation"
        busy={confirm.isPending}
        error={confirm.error ? toDisplayError(confirm.error).message : null}
        onConfirm={() =>
          confirm.mutate({
            deletionRequestId: request.id,
            ...(confirmedOn ? { confirmedAt: endOfViewerDay(confirmedOn, zone) } : {}),
            ...(note.trim() ? { note: note.trim() } : {}),
          })
        }
        onCancel={() => {
          setConfirming(false);
          confirm.reset();
        }}
      >
        <p>
          {request.receiptConfirmBy
            ? 'CCPA asks for receipt of a request to delete to be confirmed to the consumer within 10 business days, with how it will be handled. '
            : ''}
          Record here that the subject was told; it is done once and kept in the audit trail.
        </p>
        <label className="field">
          <span className="field-label">Sent on (empty: now)</span>
          <input
            type="date"
            name="confirmedOn"
            value={confirmedOn}
            max={viewerToday(zone)}
            onChange={(e) => setConfirmedOn(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">How it was sent (optional)</span>
          <input
            type="text"
            name="note"
            value={note}
            maxLength={500}
            placeholder="Emailed from privacy@"
            onChange={(e) => setNote(e.target.value)}
          />
        </label>
      </ConfirmDialog>
      {canCorrect ? (
        <ReceiptCorrectionDialog
          open={correcting}
          deletionRequestId={request.id}
          confirmedAt={request.receiptConfirmedAt!}
          onClose={() => setCorrecting(false)}
        />
      ) : null}
      <ConfirmDialog
        open={open}
        title="Extend the deadline"
        confirmLabel="Extend"
        busy={extend.isPending}
        error={extend.error ? toDisplayError(extend.error).message : null}
        confirmDisabled={reasonShort > 0}
        onConfirm={() => extend.mutate({ deletionRequestId: request.id, reason })}
        onCancel={() => {
          setOpen(false);
          extend.reset();
        }}
      >
        <p>
          {request.regulation === 'GDPR'
            ? 'GDPR allows two further months (Art. 12(3)); the subject must be told why within the first month.'
            : request.regulation === 'CCPA'
              ? 'CCPA allows one extension of 45 days, with notice to the consumer.'
              : `The ${request.regulation} policy's extension applies.`}{' '}
          It can be done once and is recorded in the audit trail.
        </p>
        <label className="field">
          <span className="field-label">Reason (told to the subject)</span>
          <textarea
            name="reason"
            rows={3}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={1000}
            aria-describedby="extension-reason-hint"
            required
          />
        </label>
        <p className="hint" id="extension-reason-hint" aria-live="polite">
          {reasonShort > 0
            ? `"Extend" is available once the reason has at least ${EXTENSION_REASON_MIN} characters (${reasonShort} more).`
            : 'The reason is long enough.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** "Due by 11 Dec 2026 · 5 business days left", or when it was recorded. */
function ReceiptConfirmation({
  by,
  at,
  canceled,
  zone,
}: {
  by: string | null;
  at: string | null;
  canceled: boolean;
  zone: ReturnType<typeof useTimeZoneChoice>;
}) {
  if (at) {
    const late = by ? -businessDaysLeft(new Date(by), new Date(at)) : 0;
    return (
      <>
        <time dateTime={at}>{formatDateTime(at, zone)}</time>
        {late > 0 ? (
          <span className="due-overdue">
            {' '}
            · {late} business day{late === 1 ? '' : 's'} late
          </span>
        ) : null}
      </>
    );
  }
  if (!by) return null;
  const due = receiptDueLabel(by);
  const tone = canceled ? 'done' : due.tone;
  const text = canceled ? 'not recorded (request canceled)' : `not recorded, ${due.text}`;
  return (
    <>
      due by <time dateTime={by}>{formatDateTime(by, zone)}</time>{' '}
      <span className={`due-${tone}`} data-due-tone={tone}>
        · {text}
      </span>
    </>
  );
}
