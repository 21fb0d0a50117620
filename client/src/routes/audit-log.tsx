import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { AuditChainStatusPanel } from '../components/audit-chain-status';
import { AuditEntryBody } from '../components/audit-entry';
import { SelectField, TextField } from '../components/field';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { OlderPages } from '../components/older-pages';
import { Empty, ErrorState, Loading } from '../components/states';
import { actionLabel } from '../lib/audit';
import { toDisplayError } from '../lib/errors';
import { focusFirstInvalid } from '../lib/form';
import { dayEnd, dayStart } from '../lib/request-filters';
import type { TimeZoneChoice } from '../lib/time-zone';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC, type RouterInputs } from '../trpc';
import { AUDIT_PEOPLE_ACTORS } from '@shared/schemas/dashboard';
import './audit-log.css';

type AuditFilter = NonNullable<RouterInputs['dashboard']['auditLog']['filter']>;

/** What people did, first: the service's own entries (status checks, retention) are one choice of "Actor" away. */
const DEFAULT_VALUES: Record<string, string> = { actorId: AUDIT_PEOPLE_ACTORS };

/**
 * The form's values (strings) as the server's filter; dates are calendar days in `zone` (UTC days
 * when the viewer shows times in UTC), "to" inclusive.
 */
export function toAuditFilter(
  values: Record<string, string>,
  zone: TimeZoneChoice,
): { filter: AuditFilter; errors: Record<string, string> } {
  const filter: AuditFilter = {};
  const errors: Record<string, string> = {};
  if (values.action) filter.actions = [values.action];
  if (values.scope === 'admin' || values.scope === 'requests') filter.scope = values.scope;
  if (values.actorId) filter.actorId = values.actorId;
  if (values.workspaceId) filter.workspaceId = values.workspaceId;
  if (values.deletionRequestId?.trim()) filter.deletionRequestId = values.deletionRequestId.trim();
  if (values.from) filter.createdFrom = dayStart(values.from, zone);
  if (values.to) filter.createdTo = dayEnd(values.to, zone);
  if (filter.createdFrom && filter.createdTo && filter.createdFrom > filter.createdTo)
    errors.to = 'The end date must not be before the start date';
  return { filter, errors };
}

export function Component() {
  const trpc = useTRPC();
  const me = useMe();
  const zone = useTimeZoneChoice();
  // The applied form values: their days become instants in the zone chosen now, and again after a switch.
  const [applied, setApplied] = useState<Record<string, string>>(DEFAULT_VALUES);
  const { filter } = toAuditFilter(applied, zone);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const log = useInfiniteQuery(
    trpc.dashboard.auditLog.infiniteQueryOptions(
      { limit: 50, filter },
      { enabled: me.isAdmin, getNextPageParam: (last) => last.nextCursor },
    ),
  );
  const actions = useQuery(trpc.dashboard.auditLogActions.queryOptions(undefined, { enabled: me.isAdmin }));
  const members = useQuery(trpc.dashboard.members.queryOptions(undefined, { enabled: me.isAdmin }));
  const workspaces = useQuery(trpc.workspaces.list.queryOptions(undefined, { enabled: me.isAdmin }));
  const header = (
    <PageHeader
      title="Audit log"
      description="Who did what and when in this organization, newest first: people's actions unless you choose another actor."
    />
  );
  if (!me.isAdmin)
    return (
      <>
        {header}
        <p className="callout">Only owners and admins can read the organization audit log.</p>
      </>
    );
  const entries = log.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Object.entries(filter).some(([key, value]) => !(key === 'actorId' && value === AUDIT_PEOPLE_ACTORS));
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v)]));
    const next = toAuditFilter(values, zone);
    setErrors(next.errors);
    if (Object.keys(next.errors).length) return focusFirstInvalid(form, next.errors);
    setApplied(values);
  };
  const serverErrors = log.error ? toDisplayError(log.error, 'filter').fieldErrors : {};
  return (
    <>
      {header}
      <AuditChainStatusPanel />
      <form
        className="card filters audit-filters"
        role="search"
        aria-label="Filter the audit log"
        noValidate
        onSubmit={apply}
        onReset={() => (setErrors({}), setApplied(DEFAULT_VALUES))}
      >
        <div className="filters-grid">
          <SelectField label="Kind" name="scope" defaultValue="all">
            <option value="all">All entries</option>
            <option value="admin">Organization set-up only</option>
            <option value="requests">Deletion requests only</option>
          </SelectField>
          <SelectField label="Action" name="action" defaultValue="">
            <option value="">Any action</option>
            {(actions.data ?? []).map((a) => (
              <option key={a} value={a}>
                {actionLabel(a)}
              </option>
            ))}
          </SelectField>
          <SelectField label="Actor" name="actorId" defaultValue={AUDIT_PEOPLE_ACTORS}>
            <option value={AUDIT_PEOPLE_ACTORS}>People (members, tokens, CLI)</option>
            <option value="">Anyone, the service included</option>
            <option value="SYSTEM">The service (workers, retention)</option>
            {(members.data ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.name || m.email}
              </option>
            ))}
          </SelectField>
          <SelectField label="Workspace" name="workspaceId" defaultValue="">
            <option value="">All workspaces</option>
            {(workspaces.data ?? []).map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Request id"
            name="deletionRequestId"
            placeholder="dr_…"
            autoComplete="off"
            error={serverErrors.deletionRequestId}
          />
          <TextField
            label={zone === 'UTC' ? 'From (UTC)' : 'From'}
            name="from"
            type="date"
            error={errors.from ?? serverErrors.createdFrom}
          />
          <TextField
            label={zone === 'UTC' ? 'To (UTC)' : 'To'}
            name="to"
            type="date"
            error={errors.to ?? serverErrors.createdTo}
          />
          <div className="row filter-actions">
            <button type="submit" className="button button-primary">
              Apply filters
            </button>
            <button type="reset" className="button">
              Clear
            </button>
          </div>
        </div>
      </form>
      {log.isPending ? (
        <Loading />
      ) : log.isError ? (
        <ErrorState error={log.error} onRetry={() => void log.refetch()} />
      ) : entries.length === 0 ? (
        <Empty title={filtered ? 'No entry matches these filters' : 'No one has acted yet'}>
          {filtered ? null : <p>The service’s own entries are shown with “Anyone” or “The service” as actor.</p>}
        </Empty>
      ) : (
        <>
          <ol className="timeline">
            {entries.map((entry) => (
              <li key={entry.id} className="timeline-item" data-audit-action={entry.action}>
                <AuditEntryBody entry={entry} context={entry.integrationName ?? undefined} />
                {entry.deletionRequestId || entry.integrationId ? (
                  <p className="small row wrap audit-links">
                    {entry.deletionRequestId ? (
                      <Link to={`/requests/${entry.deletionRequestId}`}>
                        Request <span className="mono">{entry.deletionRequestId}</span>
                      </Link>
                    ) : null}
                    {entry.integrationId ? (
                      <Link to={`/integrations/${entry.integrationId}`}>Integration {entry.integrationName}</Link>
                    ) : null}
                  </p>
                ) : null}
              </li>
            ))}
          </ol>
          <OlderPages
            query={log}
            label="Load older entries"
            end={filtered ? 'No older matching entries' : 'Beginning of the log'}
          />
        </>
      )}
    </>
  );
}
