import { IdentityLookupsPanel } from '../components/identities/identity-lookups-panel';
import { workspaceNameSchema } from '@shared/schemas/auth';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { z } from 'zod';
import { CopyableValue, CopyButton } from '../components/copy-button';
import { ConfirmDialog } from '../components/dialog';
import { TextField } from '../components/field';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { formatDate } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC, type RouterOutputs } from '../trpc';

type Workspace = RouterOutputs['workspaces']['list'][number];
type Usage = RouterOutputs['dashboard']['workspaceUsage'][number];

const nameForm = z.object({ name: workspaceNameSchema });

export function Component() {
  const trpc = useTRPC();
  const me = useMe();
  const workspaces = useQuery(trpc.workspaces.list.queryOptions());
  const usage = useQuery(trpc.dashboard.workspaceUsage.queryOptions());
  const usageById = new Map((usage.data ?? []).map((u) => [u.workspaceId, u]));
  return (
    <>
      <PageHeader
        title="Workspaces"
        description="A workspace groups integrations. A request made with its API key is sent to every enabled integration in it."
      />
      {me.isAdmin ? (
        <CreateWorkspace />
      ) : (
        <p className="callout">Only owners and admins can create and change workspaces or see their API keys.</p>
      )}
      {workspaces.isPending ? (
        <Loading />
      ) : workspaces.isError ? (
        <ErrorState error={workspaces.error} onRetry={() => void workspaces.refetch()} />
      ) : workspaces.data.length === 0 ? (
        <Empty title="No workspaces yet">
          {me.isAdmin ? <p>Create the first one above.</p> : <p>Ask an admin to create one.</p>}
        </Empty>
      ) : (
        <div className="stack">
          {workspaces.data.map((w) => (
            <WorkspaceCard key={w.id} workspace={w} usage={usageById.get(w.id)} canManage={me.isAdmin} />
          ))}
        </div>
      )}
    </>
  );
}

function CreateWorkspace() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<{ name: string; apiKey: string } | null>(null);
  const create = useMutation(
    trpc.workspaces.create.mutationOptions({
      onSuccess: async (workspace) => {
        setCreated({ name: workspace.name, apiKey: workspace.apiKey });
        await queryClient.invalidateQueries({ queryKey: trpc.workspaces.list.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.workspaceUsage.queryKey() });
      },
    }),
  );
  const { errors, onSubmit, onInput } = useFormSubmit(nameForm, (data, form) =>
    create.mutate(data, { onSuccess: () => form.reset() }),
  );
  const serverError = create.error ? toDisplayError(create.error) : null;
  return (
    <section className="card" aria-labelledby="create-workspace">
      <h2 id="create-workspace">Create a workspace</h2>
      <form className="inline-form" noValidate onSubmit={onSubmit} onInput={onInput}>
        <TextField
          label="Workspace name"
          name="name"
          placeholder="Production"
          error={errors.name ?? serverError?.fieldErrors.name}
        />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create workspace'}
        </button>
      </form>
      <FormError message={serverError && !serverError.fieldErrors.name ? serverError.message : null} />
      {created ? (
        <div className="callout callout-success" role="status">
          <p>
            Workspace <strong>{created.name}</strong> created. Its API key:
          </p>
          <CopyableValue value={created.apiKey} label="Workspace API key" />
          <p className="small">You can reveal it again from the workspace below.</p>
        </div>
      ) : null}
    </section>
  );
}

function WorkspaceCard({ workspace, usage, canManage }: { workspace: Workspace; usage?: Usage; canManage: boolean }) {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [revealed, setRevealed] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  const [typedName, setTypedName] = useState('');
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.workspaces.list.queryKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
    // A deleted workspace takes its integrations and callback endpoints with it.
    await queryClient.invalidateQueries({ queryKey: trpc.integrations.list.queryKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.callbacks.list.queryKey() });
  };
  const rename = useMutation(
    trpc.workspaces.rename.mutationOptions({ onSuccess: async () => (setRenaming(false), await refresh()) }),
  );
  const reveal = useMutation(trpc.workspaces.revealApiKey.mutationOptions({ onSuccess: (r) => setRevealed(r.apiKey) }));
  const rotate = useMutation(
    trpc.workspaces.rotateApiKey.mutationOptions({
      onSuccess: async (r) => {
        setRevealed(r.apiKey);
        setConfirm(null);
        await refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.workspaces.delete.mutationOptions({ onSuccess: async () => (setConfirm(null), await refresh()) }),
  );
  const headingId = `ws-${workspace.id}`;
  const {
    errors: renameErrors,
    onSubmit: onRename,
    onInput: onRenameInput,
  } = useFormSubmit(nameForm, (data) => rename.mutate({ workspaceId: workspace.id, name: data.name }));
  const renameError = rename.error ? toDisplayError(rename.error) : null;

  return (
    <article className="card workspace" aria-labelledby={headingId}>
      <header className="row space-between wrap">
        {renaming ? (
          <form className="inline-form" noValidate onSubmit={onRename} onInput={onRenameInput}>
            <TextField
              label="New name"
              name="name"
              defaultValue={workspace.name}
              autoFocus
              error={renameErrors.name ?? renameError?.fieldErrors.name ?? (renameError?.message || undefined)}
            />
            <button type="submit" className="button button-primary" disabled={rename.isPending}>
              Save
            </button>
            <button type="button" className="button" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <h2 id={headingId}>{workspace.name}</h2>
        )}
        {canManage && !renaming ? (
          <div className="row">
            <button type="button" className="button button-small" onClick={() => setRenaming(true)}>
              Rename
            </button>
            <button
              type="button"
              className="button button-small button-danger-outline"
              onClick={() => (setTypedName(''), remove.reset(), setConfirm('delete'))}
            >
              Delete
            </button>
          </div>
        ) : null}
      </header>
      <dl className="facts facts-grid">
        <div>
          <dt>Workspace id</dt>
          <dd>
            <span className="mono">{workspace.id}</span> <CopyButton value={workspace.id} />
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDate(workspace.createdAt, zone)}</dd>
        </div>
        <div>
          <dt>Holds</dt>
          <dd>
            {usage ? (
              <>
                {usage.integrations} integration{usage.integrations === 1 ? '' : 's'},{' '}
                <Link to={`/requests?workspace=${workspace.id}`}>
                  {usage.requests} request{usage.requests === 1 ? '' : 's'}
                </Link>
              </>
            ) : (
              '…'
            )}
          </dd>
        </div>
      </dl>
      <section className="api-key" aria-label={`API key of ${workspace.name}`}>
        <h3>Workspace API key</h3>
        <p className="muted small">
          Sent as <code>workspaceApiKey</code> when creating requests through the public API.
          {workspace.apiKeyRotatedAt ? ` Last rotated ${formatDate(workspace.apiKeyRotatedAt, zone)}.` : ''}
        </p>
        {revealed ? (
          <div className="row wrap">
            <CopyableValue value={revealed} label="Workspace API key" />
            <button type="button" className="button button-small" onClick={() => setRevealed(null)}>
              Hide
            </button>
          </div>
        ) : (
          <div className="row wrap">
            <code className="mono">{workspace.apiKeyPrefix}••••••••••••</code>
            {canManage ? (
              <button
                type="button"
                className="button button-small"
                onClick={() => reveal.mutate({ workspaceId: workspace.id })}
                disabled={reveal.isPending}
              >
                {reveal.isPending ? 'Revealing…' : 'Reveal'}
              </button>
            ) : null}
          </div>
        )}
        {canManage ? (
          <p>
            <button
              type="button"
              className="button button-small"
              onClick={() => (rotate.reset(), setConfirm('rotate'))}
            >
              Rotate key
            </button>
          </p>
        ) : null}
        <FormError message={reveal.error ? toDisplayError(reveal.error).message : null} />
      </section>
      {canManage ? <IdentityLookupsPanel workspaceId={workspace.id} workspaceName={workspace.name} /> : null}

      <ConfirmDialog
        open={confirm === 'rotate'}
        title={`Rotate the API key of ${workspace.name}?`}
        confirmLabel="Rotate key"
        destructive
        busy={rotate.isPending}
        error={rotate.error ? toDisplayError(rotate.error).message : null}
        onCancel={() => setConfirm(null)}
        onConfirm={() => rotate.mutate({ workspaceId: workspace.id })}
      >
        <p>
          The current key stops working immediately. Every system that creates requests with it must be given the new
          key.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'delete'}
        title={`Delete ${workspace.name}?`}
        confirmLabel="Delete workspace"
        destructive
        busy={remove.isPending}
        confirmDisabled={typedName.trim() !== workspace.name}
        error={remove.error ? toDisplayError(remove.error).message : null}
        onCancel={() => setConfirm(null)}
        onConfirm={() => remove.mutate({ workspaceId: workspace.id })}
      >
        <p>This cannot be undone. Deleting the workspace also deletes:</p>
        <ul>
          <li>
            its <strong>{usage?.integrations ?? '?'}</strong> integration{usage?.integrations === 1 ? '' : 's'},
          </li>
          <li>
            its <strong>{usage?.requests ?? '?'}</strong> deletion request{usage?.requests === 1 ? '' : 's'} and their
            history,
          </li>
          <li>its API key, which stops working at once.</li>
        </ul>
        <TextField
          label={`Type "${workspace.name}" to confirm`}
          value={typedName}
          onChange={(e) => setTypedName(e.target.value)}
          autoComplete="off"
        />
      </ConfirmDialog>
    </article>
  );
}
