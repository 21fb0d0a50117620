import { createTokenInputSchema } from '@shared/schemas/auth';
import { TOKEN_SCOPE_LABELS, TOKEN_SCOPES, type TokenScope } from '@shared/scopes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CopyableValue } from '../components/copy-button';
import { ConfirmDialog } from '../components/dialog';
import { SelectField, TextField } from '../components/field';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { formatDate, formatDateTime, formatRelative } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { tokenState } from '../lib/tokens';
import { useTRPC, type RouterOutputs } from '../trpc';
import './tokens.css';

type Token = RouterOutputs['tokens']['list'][number];

const EXPIRY_CHOICES = [
  { value: '', label: 'Never' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
];

export function Component() {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const me = useMe();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const workspaces = useQuery(trpc.workspaces.list.queryOptions());
  const workspaceName = (id: string) => workspaces.data?.find((w) => w.id === id)?.name ?? id;
  const [revoking, setRevoking] = useState<Token | null>(null);
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({
      onSuccess: async () => {
        setRevoking(null);
        await queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
      },
    }),
  );
  const active = me.organizations.find((o) => o.id === me.organizationId);
  return (
    <>
      <PageHeader
        title="Personal access tokens"
        description={`Tokens act as you (${me.user.email}) in ${active?.name ?? 'this organization'} on the public API, sent as the X-API-Key header.`}
      />
      <CreateToken workspaces={workspaces.data ?? []} />
      <section className="card" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your tokens</h2>
        {tokens.isPending ? (
          <Loading />
        ) : tokens.isError ? (
          <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} />
        ) : tokens.data.length === 0 ? (
          <Empty title="No tokens yet">
            <p>Create one above to call the public API.</p>
          </Empty>
        ) : (
          <div className="table-wrap">
            <table className="table responsive-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Token</th>
                  <th scope="col">Access</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.data.map((token) => {
                  const state = tokenState(token);
                  return (
                    <tr key={token.id} data-token-id={token.id}>
                      <td data-label="Name">{token.name}</td>
                      <td data-label="Token">
                        <code className="mono">{token.prefix}…</code>
                      </td>
                      <td data-label="Access" className="token-access">
                        {token.scopes.length === 0 ? 'Every scope' : token.scopes.join(', ')}
                        <br />
                        <span className="muted">
                          {token.workspaceIds.length === 0
                            ? 'All workspaces'
                            : token.workspaceIds.map(workspaceName).join(', ')}
                        </span>
                      </td>
                      <td data-label="Created">{formatDate(token.createdAt, zone)}</td>
                      <td data-label="Last used">
                        <span title={token.lastUsedAt ? formatDateTime(token.lastUsedAt, zone) : undefined}>
                          {formatRelative(token.lastUsedAt, undefined, zone)}
                        </span>
                      </td>
                      <td data-label="Expires">{token.expiresAt ? formatDate(token.expiresAt, zone) : 'Never'}</td>
                      <td data-label="Status">
                        <span className={`badge badge-token-${state}`}>
                          {state === 'active' ? 'Active' : state === 'revoked' ? 'Revoked' : 'Expired'}
                        </span>
                      </td>
                      <td data-label="">
                        {state === 'active' ? (
                          <button
                            type="button"
                            className="button button-small button-danger-outline"
                            onClick={() => (revoke.reset(), setRevoking(token))}
                          >
                            Revoke<span className="visually-hidden"> {token.name}</span>
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke "${revoking?.name ?? ''}"?`}
        confirmLabel="Revoke token"
        destructive
        busy={revoke.isPending}
        error={revoke.error ? toDisplayError(revoke.error).message : null}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ tokenId: revoking.id })}
      >
        <p>Any system using this token gets 401 Unauthorized from its next call. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

function CreateToken({ workspaces }: { workspaces: { id: string; name: string }[] }) {
  const trpc = useTRPC();
  const [scopes, setScopes] = useState<TokenScope[]>([]);
  const [workspaceIds, setWorkspaceIds] = useState<string[]>([]);
  const toggle = <T,>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((v) => v !== value));
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: async (token) => {
        setCreated({ name: token.name, token: token.token });
        await queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
      },
    }),
  );
  const { errors, onSubmit, onInput } = useFormSubmit(
    createTokenInputSchema,
    (data, form) => create.mutate(data, { onSuccess: () => (form.reset(), setScopes([]), setWorkspaceIds([])) }),
    (values) => ({
      name: values.name,
      expiresInDays: values.expiresInDays ? Number(values.expiresInDays) : undefined,
      scopes,
      workspaceIds,
    }),
  );
  const serverError = create.error ? toDisplayError(create.error) : null;
  return (
    <section className="card" aria-labelledby="create-token">
      <h2 id="create-token">Create a token</h2>
      <form className="inline-form" noValidate onSubmit={onSubmit} onInput={onInput}>
        <TextField
          label="Token name"
          name="name"
          placeholder="CRM sync"
          error={errors.name ?? serverError?.fieldErrors.name}
        />
        <SelectField
          label="Expires after"
          name="expiresInDays"
          defaultValue="90"
          error={errors.expiresInDays ?? serverError?.fieldErrors.expiresInDays}
        >
          {EXPIRY_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </SelectField>
        <fieldset className="token-limits">
          <legend>Scopes</legend>
          <p className="hint">None checked: the token can do everything you can.</p>
          {TOKEN_SCOPES.map((scope) => (
            <label key={scope} className="checkbox-label">
              <input
                type="checkbox"
                name="scope"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes(toggle(scopes, scope, e.target.checked))}
              />
              <code>{scope}</code> {TOKEN_SCOPE_LABELS[scope]}
            </label>
          ))}
        </fieldset>
        {workspaces.length > 0 ? (
          <fieldset className="token-limits">
            <legend>Workspaces</legend>
            <p className="hint">None checked: every workspace.</p>
            {workspaces.map((workspace) => (
              <label key={workspace.id} className="checkbox-label">
                <input
                  type="checkbox"
                  name="workspace"
                  value={workspace.id}
                  checked={workspaceIds.includes(workspace.id)}
                  onChange={(e) => setWorkspaceIds(toggle(workspaceIds, workspace.id, e.target.checked))}
                />
                {workspace.name}
              </label>
            ))}
          </fieldset>
        ) : null}
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </form>
      <FormError message={serverError && !Object.keys(serverError.fieldErrors).length ? serverError.message : null} />
      {created ? (
        <div className="callout callout-warning new-token" role="status">
          <p>
            <strong>Copy your new token “{created.name}” now.</strong> It is shown only this once; the service keeps
            only a hash of it.
          </p>
          <CopyableValue value={created.token} label="New personal access token" />
          <button type="button" className="button button-small" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      ) : null}
    </section>
  );
}
