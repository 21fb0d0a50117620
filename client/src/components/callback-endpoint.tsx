/** One registered callback endpoint: its settings, secret rotation, test delivery and delivery log. */

import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CopyableValue } from './copy-button';
import { ConfirmDialog } from './dialog';
import { SelectField } from './field';
import { OlderPages } from './older-pages';
import { ErrorState, Loading } from './states';
import { toDisplayError } from '../lib/errors';
import { formatDateTime } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC, type RouterOutputs } from '../trpc';
import './callback-endpoint.css';

type Endpoint = RouterOutputs['callbacks']['list'][number];
type Delivery = RouterOutputs['callbacks']['deliveries']['items'][number];

/** Dates travel as ISO strings (no transformer), whatever the inferred type says. */
const iso = (value: unknown) => (value ? String(value instanceof Date ? value.toISOString() : value) : null);

const OVERLAP_CHOICES = [
  { value: '0', label: 'Stop the old secret at once' },
  { value: '1', label: '1 hour' },
  { value: '24', label: '24 hours' },
  { value: '72', label: '3 days' },
  { value: '168', label: '7 days' },
];

/** The signing secret, shown once after it was made (creation or rotation). */
export function NewSecret({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  return (
    <div className="callout callout-warning new-token" role="status">
      <p>
        <strong>{title}</strong> It is shown only this once. Receivers verify each delivery's{' '}
        <code>webhook-signature</code> with it (Standard Webhooks).
      </p>
      <CopyableValue value={secret} label="Signing secret" />
      <button type="button" className="button button-small" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

export function EndpointCard({ endpoint, workspaceName }: { endpoint: Endpoint; workspaceName: string }) {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refreshList = () => queryClient.invalidateQueries({ queryKey: trpc.callbacks.list.queryKey() });
  const refreshLog = () =>
    queryClient.invalidateQueries({
      queryKey: trpc.callbacks.deliveries.infiniteQueryKey({ endpointId: endpoint.id }),
    });
  const [showLog, setShowLog] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [rotating, setRotating] = useState(false);
  const [overlapHours, setOverlapHours] = useState('24');
  const [newSecret, setNewSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const sendTest = useMutation(
    trpc.callbacks.sendTest.mutationOptions({
      onSuccess: async () => {
        setDone('Test event queued.');
        setShowLog(true);
        await refreshLog();
      },
    }),
  );
  const update = useMutation(
    trpc.callbacks.update.mutationOptions({
      onSuccess: async (e) => (setDone(e.enabled ? 'Enabled.' : 'Disabled.'), await refreshList()),
    }),
  );
  const rotate = useMutation(
    trpc.callbacks.rotateSecret.mutationOptions({
      onSuccess: async (rotated) => {
        setRotating(false);
        setNewSecret(rotated.secret);
        await refreshList();
      },
    }),
  );
  const remove = useMutation(
    trpc.callbacks.delete.mutationOptions({ onSuccess: async () => (setDeleting(false), await refreshList()) }),
  );
  const overlapEnds = iso(endpoint.previousSecretExpiresAt);
  const actionError = sendTest.error ?? update.error;
  return (
    <article className="card callback-endpoint" aria-label={endpoint.url} data-endpoint-id={endpoint.id}>
      <header className="row wrap">
        <h3 className="mono">{endpoint.url}</h3>
        <span className={`badge ${endpoint.enabled ? 'badge-token-active' : 'badge-token-revoked'}`}>
          {endpoint.enabled ? 'Enabled' : 'Disabled'}
        </span>
      </header>
      <dl className="details">
        {endpoint.description ? (
          <div>
            <dt>Description</dt>
            <dd>{endpoint.description}</dd>
          </div>
        ) : null}
        <div>
          <dt>Workspace</dt>
          <dd>{workspaceName}</dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd>
            {endpoint.events.map((type) => (
              <code key={type} className="event-type">
                {type}
              </code>
            ))}
          </dd>
        </div>
        {overlapEnds && new Date(overlapEnds).getTime() > Date.now() ? (
          <div>
            <dt>Previous secret</dt>
            <dd>still signs until {formatDateTime(overlapEnds, zone)}</dd>
          </div>
        ) : null}
      </dl>
      <div className="row wrap">
        <button
          type="button"
          className="button button-small"
          disabled={sendTest.isPending}
          onClick={() => (setDone(null), sendTest.mutate({ endpointId: endpoint.id }))}
        >
          Send test event<span className="visually-hidden"> to {endpoint.url}</span>
        </button>
        <button
          type="button"
          className="button button-small"
          onClick={() => setShowLog(!showLog)}
          aria-expanded={showLog}
        >
          {showLog ? 'Hide delivery log' : 'Delivery log'}
        </button>
        <button type="button" className="button button-small" onClick={() => (rotate.reset(), setRotating(true))}>
          Rotate secret
        </button>
        <button
          type="button"
          className="button button-small"
          disabled={update.isPending}
          onClick={() => (setDone(null), update.mutate({ endpointId: endpoint.id, enabled: !endpoint.enabled }))}
        >
          {endpoint.enabled ? 'Disable' : 'Enable'}
        </button>
        <button
          type="button"
          className="button button-small button-danger-outline"
          onClick={() => (remove.reset(), setDeleting(true))}
        >
          Delete<span className="visually-hidden"> {endpoint.url}</span>
        </button>
      </div>
      {actionError ? (
        <p className="form-error" role="alert">
          {toDisplayError(actionError).message}
        </p>
      ) : done ? (
        <p className="muted small" role="status">
          {done}
        </p>
      ) : null}
      {newSecret ? (
        <NewSecret title="Copy the new signing secret now." secret={newSecret} onDone={() => setNewSecret(null)} />
      ) : null}
      {showLog ? <DeliveryLog endpointId={endpoint.id} /> : null}
      <ConfirmDialog
        open={rotating}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        busy={rotate.isPending}
        error={rotate.error ? toDisplayError(rotate.error).message : null}
        onCancel={() => setRotating(false)}
        onConfirm={() => rotate.mutate({ endpointId: endpoint.id, overlapHours: Number(overlapHours) })}
      >
        <p>
          A new secret is made and shown once. During the overlap every delivery carries two signatures, one per secret,
          so your receiver can switch without missing an event.
        </p>
        <SelectField
          label="The old secret keeps signing for"
          name="overlapHours"
          value={overlapHours}
          onChange={(e) => setOverlapHours(e.target.value)}
        >
          {OVERLAP_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </SelectField>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting}
        title={`Delete the endpoint ${endpoint.url}?`}
        confirmLabel="Delete endpoint"
        destructive
        busy={remove.isPending}
        error={remove.error ? toDisplayError(remove.error).message : null}
        onCancel={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ endpointId: endpoint.id })}
      >
        <p>It receives no more events, and its delivery log is deleted with it. To pause it instead, disable it.</p>
      </ConfirmDialog>
    </article>
  );
}

const DELIVERY_STATUS_LABELS: Record<Delivery['status'], string> = {
  PENDING: 'Pending',
  DELIVERED: 'Delivered',
  FAILED: 'Failed',
};

/** The endpoint's deliveries, newest first, 50 at a time; refreshed while any shown is still on its way. */
function DeliveryLog({ endpointId }: { endpointId: string }) {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const log = useInfiniteQuery(
    trpc.callbacks.deliveries.infiniteQueryOptions(
      { endpointId },
      {
        getNextPageParam: (last) => last.nextCursor,
        refetchInterval: (query) =>
          query.state.data?.pages.some((page) => page.items.some((d) => d.status === 'PENDING')) ? 1_000 : 10_000,
      },
    ),
  );
  const deliveries = log.data?.pages.flatMap((page) => page.items) ?? [];
  const resend = useMutation(
    trpc.callbacks.resend.mutationOptions({
      onSuccess: () =>
        queryClient.invalidateQueries({ queryKey: trpc.callbacks.deliveries.infiniteQueryKey({ endpointId }) }),
    }),
  );
  return (
    <section className="delivery-log" aria-label="Delivery log">
      <h4>Delivery log</h4>
      {resend.error ? (
        <p className="form-error" role="alert">
          {toDisplayError(resend.error).message}
        </p>
      ) : null}
      {log.isPending ? (
        <Loading />
      ) : log.isError ? (
        <ErrorState error={log.error} onRetry={() => void log.refetch()} />
      ) : deliveries.length === 0 ? (
        <p className="muted small">Nothing sent yet. Send a test event to try the endpoint.</p>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.id} data-delivery-id={delivery.id} data-status={delivery.status}>
                  <td data-label="Event">
                    <code>{delivery.eventType}</code>
                    <br />
                    <span className="muted mono small" title="webhook-id">
                      {delivery.id}
                    </span>
                  </td>
                  <td data-label="Status">
                    <span className={`badge badge-delivery-${delivery.status.toLowerCase()}`}>
                      {DELIVERY_STATUS_LABELS[delivery.status]}
                    </span>
                  </td>
                  <td data-label="Attempts">{delivery.attempts}</td>
                  <td data-label="Last answer">
                    {delivery.lastStatusCode ? `HTTP ${delivery.lastStatusCode}` : ''}
                    {delivery.lastError ? <span className="muted"> {delivery.lastError}</span> : null}
                    {!delivery.lastStatusCode && !delivery.lastError ? '—' : null}
                  </td>
                  <td data-label="Created">{formatDateTime(delivery.createdAt, zone)}</td>
                  <td data-label="">
                    {delivery.status !== 'PENDING' ? (
                      <button
                        type="button"
                        className="button button-small"
                        disabled={resend.isPending}
                        onClick={() => resend.mutate({ deliveryId: delivery.id })}
                      >
                        Resend<span className="visually-hidden"> {delivery.id}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <OlderPages
            query={log}
            label="Load older deliveries"
            end={`${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'} shown · none older`}
          />
        </div>
      )}
    </section>
  );
}
