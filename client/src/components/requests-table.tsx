/** The Requests screen's list: a row per request, with the boxes that select them for bulk actions. */
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { SegmentedStatusBar, StatusBadge } from './status';
import { DueDate } from './due-date';
import { formatDateTime, formatRelative } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { progressSummary } from '../lib/status';
import { RevealableIdentifier } from './revealable-identifier';
import type { Selection } from './bulk-actions';
import type { RouterOutputs } from '../trpc';

/** One row of the Requests screen's list. */
type RequestRow = RouterOutputs['dashboard']['searchRequests']['items'][number];

/** The header's box: ticks (or clears) every row on screen; shows "some" while only part of them are ticked. */
function SelectPage({
  rows,
  selection,
  onSelectionChange,
}: {
  rows: RequestRow[];
  selection: Selection;
  onSelectionChange: (next: Selection) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  const ticked = rows.filter((row) => selection.ids.has(row.id)).length;
  const all = selection.allMatching || (rows.length > 0 && ticked === rows.length);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = !all && ticked > 0;
  }, [all, ticked]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label="Select all requests on this page"
      checked={all}
      onChange={(event) =>
        onSelectionChange({
          ids: event.target.checked ? new Set(rows.map((row) => row.id)) : new Set(),
          allMatching: false,
        })
      }
    />
  );
}

export function RequestsTable({
  rows,
  selection,
  onSelectionChange,
}: {
  rows: RequestRow[];
  selection: Selection;
  onSelectionChange: (next: Selection) => void;
}) {
  const zone = useTimeZoneChoice();
  const toggle = (id: string, on: boolean) => {
    // Unticking one row of "all matching" keeps the other rows on screen ticked.
    const ids = new Set(selection.allMatching ? rows.map((row) => row.id) : selection.ids);
    if (on) ids.add(id);
    else ids.delete(id);
    onSelectionChange({ ids, allMatching: false });
  };
  return (
    <div className="table-wrap">
      {/* On a phone the header row is hidden, and its box with it: the same box, labelled, above the cards. */}
      <label className="select-page">
        <SelectPage rows={rows} selection={selection} onSelectionChange={onSelectionChange} />
        Select all on this page
      </label>
      <table className="table responsive-table requests-table">
        <thead>
          <tr>
            <th scope="col" className="select-cell">
              <SelectPage rows={rows} selection={selection} onSelectionChange={onSelectionChange} />
            </th>
            <th scope="col">Identifier</th>
            <th scope="col">Request id</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Due</th>
            <th scope="col">Workspace</th>
            <th scope="col">Created</th>
            <th scope="col">Created by</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const statuses = (row.integrationRequests ?? []).map((ir) => ir.status);
            return (
              <tr key={row.id} data-request-id={row.id}>
                <td data-label="Select" className="select-cell">
                  <input
                    type="checkbox"
                    aria-label={`Select request ${row.maskedIdentifier ?? row.id}`}
                    checked={selection.allMatching || selection.ids.has(row.id)}
                    onChange={(event) => toggle(row.id, event.target.checked)}
                  />
                </td>
                <td data-label="Identifier">
                  {row.maskedIdentifier === null ? (
                    <Link to={`/requests/${row.id}`} className="mono truncate identifier-link">
                      (deleted by retention)
                    </Link>
                  ) : (
                    <RevealableIdentifier
                      requestId={row.id}
                      masked={row.maskedIdentifier}
                      tag={row.identifierTag}
                      hashed={row.hashed}
                      linkToRequest
                    />
                  )}
                </td>
                <td data-label="Request id" className="mono small nowrap">
                  {row.id}
                </td>
                <td data-label="Status">
                  <StatusBadge status={row.status} />
                </td>
                <td data-label="Progress">
                  <div>
                    <SegmentedStatusBar statuses={statuses} />
                    <span className="muted small">{progressSummary(statuses)}</span>
                  </div>
                </td>
                <td data-label="Due">
                  <DueDate
                    dueAt={row.dueAt}
                    status={row.status}
                    regulation={row.regulation}
                    receipt={{ confirmBy: row.receiptConfirmBy, confirmedAt: row.receiptConfirmedAt }}
                    canceled={{ reason: row.cancelReason, note: row.cancelNote }}
                  />
                </td>
                <td data-label="Workspace">{row.workspaceName}</td>
                <td data-label="Created">
                  <time dateTime={row.createdAt} title={formatDateTime(row.createdAt, zone)}>
                    {formatRelative(row.createdAt, undefined, zone)}
                  </time>
                </td>
                <td data-label="Created by">
                  <div>
                    {row.createdByName ?? '—'}
                    <span className="muted small block">{row.channel === 'API' ? 'via API' : 'in dashboard'}</span>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
