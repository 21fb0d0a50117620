import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import type { RouterOutputs } from '../trpc';
import { StatusBadge } from './status';

type OpenRequest = RouterOutputs['dashboard']['openDuplicates'][number];

/**
 * Said before a request is created for a person who already has one open in the organization
 * (an identifier in common): which requests, masked, and the choice to open one or create anyway.
 * Focus moves to it, so a keyboard or screen reader user meets it where the form was sent.
 */
export function DuplicateWarning({
  duplicates,
  creating,
  onCreateAnyway,
}: {
  duplicates: OpenRequest[];
  creating: boolean;
  onCreateAnyway: () => void;
}) {
  const zone = useTimeZoneChoice();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const latest = duplicates[0]!;
  return (
    <section className="callout callout-warning stack" aria-labelledby="duplicate-heading">
      <h2 id="duplicate-heading" tabIndex={-1} ref={heading}>
        This person already has {duplicates.length === 1 ? 'an open request' : `${duplicates.length} open requests`}
      </h2>
      <p>An identifier given here is one of theirs. Creating another sends a second deletion to every integration.</p>
      <ul>
        {duplicates.map((request) => (
          <li key={request.id}>
            <Link to={`/requests/${request.id}`} className="mono">
              {request.id}
            </Link>{' '}
            <span className="mono">{request.maskedIdentifier ?? '(deleted by retention)'}</span> in{' '}
            {request.workspaceName}, created {formatDateTime(request.createdAt, zone)}{' '}
            <StatusBadge status={request.status} />
          </li>
        ))}
      </ul>
      <div className="form-actions">
        <Link to={`/requests/${latest.id}`} className="button">
          Open the existing request
        </Link>
        <button type="button" className="button button-primary" disabled={creating} onClick={onCreateAnyway}>
          {creating ? 'Creating…' : 'Create anyway'}
        </button>
      </div>
    </section>
  );
}
