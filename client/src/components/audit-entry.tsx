import {
  actionLabel,
  actorLabel,
  detailsBlockText,
  humanizeKey,
  isIsoInstant,
  splitDetails,
  type JsonValue,
} from '../lib/audit';
import { formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import './audit-entry.css';

export interface AuditEntryView {
  id: string;
  action: string;
  summary: string;
  outcome: string | null;
  actorType: string;
  actorId: string | null;
  actorName: string | null;
  createdAt: string;
  details: unknown;
  /** Identical status checks this entry stands for (folded into it), and when the last ran. */
  repeatCount?: number;
  lastRepeatedAt?: string | null;
}

interface SqlExchange {
  kind: 'sql';
  statement: string;
  rowCount?: number;
  durationMs?: number;
  error?: string;
}

/** SQL exchanges read as SQL (statement, then rows and time as a comment), not as escaped JSON. */
export function sqlText(value: unknown): string | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  if (
    !value.every(
      (v) =>
        v &&
        typeof v === 'object' &&
        (v as SqlExchange).kind === 'sql' &&
        typeof (v as SqlExchange).statement === 'string',
    )
  )
    return null;
  return (value as SqlExchange[])
    .map((x) => {
      const facts = [
        x.rowCount !== undefined ? `${x.rowCount} row(s)` : null,
        x.durationMs !== undefined ? `${x.durationMs} ms` : null,
        x.error ? `error: ${x.error}` : null,
      ].filter(Boolean);
      return `${x.statement};${facts.length ? `\n-- ${facts.join(', ')}` : ''}`;
    })
    .join('\n\n');
}

/** One audit entry: what, who, when, outcome, and its recorded details (HTTP, SQL) expandable. */
export function AuditEntryBody({ entry, context }: { entry: AuditEntryView; context?: string }) {
  const zone = useTimeZoneChoice();
  const { facts, blocks } = splitDetails((entry.details ?? null) as JsonValue);
  return (
    <div className="audit-entry">
      <div className="audit-head">
        <strong>{actionLabel(entry.action, entry.outcome)}</strong>
        {entry.outcome ? (
          <span className={`outcome outcome-${entry.outcome.toLowerCase()}`}>{entry.outcome}</span>
        ) : null}
        {context ? <span className="tag">{context}</span> : null}
        <time className="muted small" dateTime={entry.createdAt}>
          {formatDateTime(entry.createdAt, zone)}
        </time>
      </div>
      <p className="audit-summary">
        {entry.summary}
        {entry.repeatCount && entry.repeatCount > 1 ? (
          <span className="muted" data-repeat-count={entry.repeatCount}>
            {' '}
            ×{entry.repeatCount}, first {formatDateTime(entry.createdAt, zone)}
            {entry.lastRepeatedAt ? `, last ${formatDateTime(entry.lastRepeatedAt, zone)}` : ''}
          </span>
        ) : null}
      </p>
      <p className="muted small">By {actorLabel(entry)}</p>
      {facts.length ? (
        <dl className="facts">
          {facts.map(([key, value]) => (
            <div key={key}>
              <dt>{humanizeKey(key)}</dt>
              {isIsoInstant(value) ? (
                <dd>
                  <time dateTime={value}>{formatDateTime(value, zone)}</time>
                </dd>
              ) : (
                <dd className="mono">{value}</dd>
              )}
            </div>
          ))}
        </dl>
      ) : null}
      {blocks.map(([key, value]) => (
        <details key={key} className="audit-block">
          <summary>{humanizeKey(key)}</summary>
          <pre className="code-block">
            {typeof value === 'string'
              ? value
              : (sqlText(value) ?? detailsBlockText(key, value, (iso) => formatDateTime(iso, zone)))}
          </pre>
        </details>
      ))}
    </div>
  );
}
