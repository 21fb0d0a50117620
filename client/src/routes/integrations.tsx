import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ConfirmDialog } from '../components/dialog';
import { ConnectionResult } from '../components/integrations/connection-result';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useTRPC, type RouterOutputs } from '../trpc';
import { integrationTypeLabel } from '@shared/integrations/labels';

type Integration = RouterOutputs['integrations']['list'][number];

export function Component() {
  const trpc = useTRPC();
  const me = useMe();
  const workspaces = useQuery(trpc.workspaces.list.queryOptions());
  const integrations = useQuery(trpc.integrations.list.queryOptions({}));
  const [search] = useSearchParams();
  const savedId = search.get('saved');
  const header = (
    <PageHeader
      title="Integrations"
      description="Where subject data lives. A new request is sent to every enabled integration of its workspace."
      actions={
        me.isAdmin ? (
          <Link
            className="button button-primary"
            to={
              search.get('workspaceId')
                ? `/integrations/new?workspaceId=${search.get('workspaceId')}`
                : '/integrations/new'
            }
          >
            Connect integration
          </Link>
        ) : null
      }
    />
  );
  if (integrations.isPending || workspaces.isPending)
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (integrations.isError || workspaces.isError)
    return (
      <>
        {header}
        <ErrorState error={integrations.error ?? workspaces.error} onRetry={() => void integrations.refetch()} />
      </>
    );
  return (
    <>
      {header}
      {savedId && integrations.data.some((i) => i.id === savedId) ? (
        <p className="callout callout-success" role="status">
          Integration “{integrations.data.find((i) => i.id === savedId)!.name}” saved.
        </p>
      ) : null}
      {integrations.data.length === 0 ? (
        <Empty title="No integrations yet">
          <p>Requests in a workspace without enabled integrations fail with that reason.</p>
        </Empty>
      ) : (
        workspaces.data.map((workspace) => {
          const own = integrations.data.filter((i) => i.workspaceId === workspace.id);
          if (own.length === 0) return null;
          return (
            <section key={workspace.id} className="stack" aria-label={`Integrations of ${workspace.name}`}>
              <h2>{workspace.name}</h2>
              <div className="cards-grid">
                {own.map((integration) => (
                  <IntegrationCard key={integration.id} integration={integration} canManage={me.isAdmin} />
                ))}
              </div>
            </section>
          );
        })
      )}
    </>
  );
}

function IntegrationCard({ integration, canManage }: { integration: Integration; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);
  // Accounts show which integrations use them; a workspace's usage counts them.
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.integrations.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.accounts.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.dashboard.workspaceUsage.queryKey() }),
    ]);
  const setEnabled = useMutation(trpc.integrations.setEnabled.mutationOptions({ onSuccess: refresh }));
  const test = useMutation(trpc.integrations.testConnection.mutationOptions());
  const remove = useMutation(
    trpc.integrations.delete.mutationOptions({ onSuccess: async () => (setConfirmDelete(false), await refresh()) }),
  );
  const error = setEnabled.error;
  return (
    <article className="card" aria-label={integration.name}>
      <header className="row space-between">
        <div>
          <h3>{integration.name}</h3>
          <span className="muted small">{integrationTypeLabel(integration.type)}</span>
        </div>
        <span className={`badge ${integration.enabled ? 'badge-success' : 'badge-staging'}`}>
          {integration.enabled ? 'Enabled' : 'Disabled'}
        </span>
      </header>
      <dl className="facts">
        <div>
          <dt>Account</dt>
          <dd>
            {integration.account ? integration.account.name : 'None'}
            {canManage ? (
              <>
                {' · '}
                <Link to={`/integrations/${integration.id}#integration-account`}>Swap</Link>
              </>
            ) : null}
          </dd>
        </div>
      </dl>
      <details className="audit-block">
        <summary>Configuration</summary>
        <pre className="code-block">{JSON.stringify(integration.config, null, 2)}</pre>
      </details>
      {canManage ? (
        <div className="row wrap ir-actions">
          <button
            type="button"
            className="button button-small"
            disabled={setEnabled.isPending}
            onClick={() => setEnabled.mutate({ integrationId: integration.id, enabled: !integration.enabled })}
          >
            {integration.enabled ? 'Disable' : 'Enable'}
          </button>
          <Link
            className="button button-small"
            to={`/integrations/${integration.id}`}
            aria-label={`Edit ${integration.name}`}
          >
            Edit
          </Link>
          <button
            type="button"
            className="button button-small"
            disabled={test.isPending}
            onClick={() => test.mutate({ integrationId: integration.id })}
          >
            {test.isPending ? 'Testing…' : 'Test connection'}
          </button>
          <button
            type="button"
            className="button button-small button-danger-outline"
            onClick={() => (remove.reset(), setConfirmDelete(true))}
          >
            Delete
          </button>
        </div>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {toDisplayError(error).message}
        </p>
      ) : null}
      {test.error ? (
        <ConnectionResult result={{ ok: false, message: toDisplayError(test.error).message }} />
      ) : test.data && !test.isPending ? (
        <ConnectionResult result={test.data} />
      ) : null}
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${integration.name}?`}
        confirmLabel="Delete integration"
        destructive
        busy={remove.isPending}
        error={remove.error ? toDisplayError(remove.error).message : null}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() => remove.mutate({ integrationId: integration.id })}
      >
        <p>
          New requests will no longer be sent to it. Past requests keep their history; their account stays in Accounts.
        </p>
      </ConfirmDialog>
    </article>
  );
}
