import { businessDaysLeft } from '@shared/days-left';
import { deadlineLabel } from '../lib/deadline';
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
}: {
  dueAt: string | null;
  status: string;
  regulation: string | null;
  receipt?: { confirmBy: string | null; confirmedAt: string | null };
}) {
  const zone = useTimeZoneChoice();
  if (!dueAt) return <span className="muted">—</span>;
  const label = deadlineLabel(dueAt, status);
  const receiptDue = receipt?.confirmBy && !receipt.confirmedAt && status !== 'CANCELED' ? receipt.confirmBy : null;
  const receiptLeft = receiptDue ? businessDaysLeft(new Date(receiptDue), new Date()) : 0;
  const receiptTone = receiptLeft < 0 ? 'overdue' : receiptLeft <= 2 ? 'soon' : 'ok';
  return (
    <div className="due-date">
      <time dateTime={dueAt} title={`${regulation ?? ''} deadline: ${formatDateTime(dueAt, zone)}`}>
        {formatDate(dueAt, zone)}
      </time>
      <span className={`small block due-${label.tone}`} data-due-tone={label.tone}>
        {label.text}
      </span>
      {receiptDue ? (
        <span
          className={`small block due-${receiptTone}`}
          data-receipt-tone={receiptTone}
          title={`Receipt to confirm to the subject by ${formatDateTime(receiptDue, zone)}`}
        >
          {receiptLeft < 0
            ? `receipt ${-receiptLeft} business day${receiptLeft === -1 ? '' : 's'} late`
            : receiptLeft === 0
              ? 'receipt due today'
              : `receipt: ${receiptLeft} business day${receiptLeft === 1 ? '' : 's'} left`}
        </span>
      ) : null}
    </div>
  );
}
