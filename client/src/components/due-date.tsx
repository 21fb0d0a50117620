import { cancelReasonText, CLOSED_NOT_FULFILLED } from '@shared/cancel-reasons';
import { deadlineLabel, receiptDueLabel } from '../lib/deadline';
import { formatDate, formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';

/**
 * A request's legal deadline with the days left (or overdue), and, while a receipt is still to
 * be confirmed to the subject (CCPA), the business days left for that.
 */
export function DueDate({
  dueAt,
  status,
  regulation,
  receipt,
  canceled,
}: {
  dueAt: string | null;
  status: string;
  regulation: string | null;
  receipt?: { confirmBy: string | null; confirmedAt: string | null };
  /** Why a canceled request was closed, as given on cancel. */
  canceled?: { reason: string | null; note: string | null };
}) {
  const zone = useTimeZoneChoice();
  const closedBecause = status === 'CANCELED' && canceled ? cancelReasonText(canceled.reason, canceled.note) : null;
  if (!dueAt)
    return status === 'CANCELED' ? (
      <div className="due-date">
        <span className="small block due-done">{CLOSED_NOT_FULFILLED}</span>
        {closedBecause ? <span className="small block muted">{closedBecause}</span> : null}
      </div>
    ) : (
      <span className="muted">—</span>
    );
  const label = deadlineLabel(dueAt, status);
  const receiptDue = receipt?.confirmBy && !receipt.confirmedAt && status !== 'CANCELED' ? receipt.confirmBy : null;
  const receiptLabel = receiptDue ? receiptDueLabel(receiptDue) : null;
  return (
    <div className="due-date">
      <time dateTime={dueAt} title={`${regulation ?? ''} deadline: ${formatDateTime(dueAt, zone)}`}>
        {formatDate(dueAt, zone)}
      </time>
      <span className={`small block due-${label.tone}`} data-due-tone={label.tone}>
        {label.text}
      </span>
      {closedBecause ? <span className="small block muted">{closedBecause}</span> : null}
      {receiptDue && receiptLabel ? (
        <span
          className={`small block due-${receiptLabel.tone}`}
          data-receipt-tone={receiptLabel.tone}
          title={`Receipt to confirm to the subject by ${formatDateTime(receiptDue, zone)}`}
        >
          {receiptLabel.left > 0 ? `receipt: ${receiptLabel.text}` : `receipt ${receiptLabel.text}`}
        </span>
      ) : null}
    </div>
  );
}
