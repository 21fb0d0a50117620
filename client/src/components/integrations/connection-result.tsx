import './connection-result.css';

/** What a connection test answered, where it connected; whether it passed is its icon and colour too. */
export interface ConnectionOutcome {
  ok: boolean;
  message: string;
  host?: string | null;
}

/** A pass is a status, a failure an alert: both say the destination's own words and where. */
export function ConnectionResult({ result }: { result: ConnectionOutcome }) {
  const where = result.host ? ` (${result.host})` : '';
  return result.ok ? (
    <p className="callout callout-success connection-result connection-pass" role="status">
      <span className="connection-icon" aria-hidden="true">
        ✓
      </span>
      <span>
        <strong>Connection works{where}.</strong> {result.message}
      </span>
    </p>
  ) : (
    <p className="callout callout-danger connection-result connection-fail" role="alert">
      <span className="connection-icon" aria-hidden="true">
        ✕
      </span>
      <span>
        <strong>Connection failed{where}.</strong> {result.message}
      </span>
    </p>
  );
}
