import { deadlineLabel } from '../lib/deadline';
import { formatDate, formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';

/** A request's legal deadline with the days left (or overdue). */
export function DueDate({
  dueAt,
  status,
  regulation,
}: {
  dueAt: string | null;
  status: string;
  regulation: string | null;
}) {
  const zone = useTimeZoneChoice();
  if (!dueAt) return <span className="muted">—</span>;
  const label = deadlineLabel(dueAt, status);
  return (
    <div className="due-date">
      <time dateTime={dueAt} title={`${regulation ?? ''} deadline: ${formatDateTime(dueAt, zone)}`}>
        {formatDate(dueAt, zone)}
      </time>
      <span className={`small block due-${label.tone}`} data-due-tone={label.tone}>
        {label.text}
      </span>
    </div>
  );
}
