import type { RequestStatus } from '@shared/statuses';
import { STATUS_COLOR, STATUS_DESCRIPTION, STATUS_LABEL, progressSummary, statusSegments } from '../lib/status';

export function StatusBadge({ status }: { status: RequestStatus }) {
  return (
    <span className={`badge badge-${status.toLowerCase()}`} title={STATUS_DESCRIPTION[status]}>
      {STATUS_LABEL[status]}
    </span>
  );
}

/** One segment per status, sized by how many integration requests are in it. */
export function SegmentedStatusBar({ statuses }: { statuses: RequestStatus[] }) {
  const segments = statusSegments(statuses);
  const summary = progressSummary(statuses);
  return (
    <div className="segmented" role="img" aria-label={summary} title={summary}>
      {segments.length === 0 ? <span className="segment segment-empty" style={{ width: '100%' }} /> : null}
      {segments.map((segment) => (
        <span
          key={segment.status}
          className="segment"
          style={{ width: `${segment.fraction * 100}%`, background: STATUS_COLOR[segment.status] }}
        />
      ))}
    </div>
  );
}
