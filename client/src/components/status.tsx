import type { RequestStatus } from '@shared/statuses';
import { STATUS_DESCRIPTION, STATUS_LABEL, progressSummary, statusSegments } from '../lib/status';

export function StatusBadge({ status }: { status: RequestStatus }) {
  return (
    <span className={`badge badge-${status.toLowerCase()}`} title={STATUS_DESCRIPTION[status]}>
      {STATUS_LABEL[status]}
    </span>
  );
}

/**
 * One segment per status, sized by how many integration requests are in it. Drawn in SVG
 * (sizes and colours are attributes and classes, not inline styles), so the server's rendering
 * of a page shows it under the page's Content-Security-Policy (style-src 'self').
 */
export function SegmentedStatusBar({ statuses }: { statuses: RequestStatus[] }) {
  const segments = statusSegments(statuses);
  const summary = progressSummary(statuses);
  let offset = 0;
  return (
    <svg
      className={segments.length === 0 ? 'segmented segmented-empty' : 'segmented'}
      role="img"
      aria-label={summary}
      viewBox="0 0 100 10"
      preserveAspectRatio="none"
    >
      <title>{summary}</title>
      {segments.map((segment, index) => {
        const x = offset;
        const width = segment.fraction * 100;
        offset += width;
        return (
          <g key={segment.status}>
            <rect x={x} y={0} width={width} height={10} className={`segment segment-${segment.status.toLowerCase()}`} />
            {index > 0 ? <line x1={x} x2={x} y1={0} y2={10} className="segment-gap" /> : null}
          </g>
        );
      })}
    </svg>
  );
}
