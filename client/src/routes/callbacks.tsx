import {
  CALLBACK_EVENT_LABELS,
  CALLBACK_EVENT_TYPES,
  createCallbackEndpointInputSchema,
  type CallbackEventType,
} from '@shared/schemas/callbacks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SelectField, TextField } from '../components/field';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { useFormSubmit } from '../lib/use-form-submit';
import { useTRPC } from '../trpc';
import { EndpointCard, NewSecret } from '../components/callback-endpoint';
import './tokens.css';

export function Component() {
  const trpc = useTRPC();
  const me = useMe();
  const endpoints = useQuery({ ...trpc.callbacks.list.queryOptions(), enabled: me.isAdmin });
  const workspaces = useQuery(trpc.workspaces.list.queryOptions());
  const workspaceName = (id: string | null) =>
    id ? (workspaces.data?.find((w) => w.id === id)?.name ?? id) : 'All workspaces';
  return (
    <>
      <PageHeader
        title="Status callbacks"
        description="HTTPS endpoints that receive signed events (Standard Webhooks) when deletion requests are created, finish or fail, so your systems need not poll."
      />
      {!me.isAdmin ? (
        <p className="callout">Only owners and admins can register and manage callback endpoints.</p>
      ) : (
        <>
          <CreateEndpoint workspaces={workspaces.data ?? []} />
          <section className="card" aria-labelledby="endpoints-heading">
            <h2 id="endpoints-heading">Endpoints</h2>
            {endpoints.isPending ? (
              <Loading />
            ) : endpoints.isError ? (
              <ErrorState error={endpoints.error} onRetry={() => void endpoints.refetch()} />
            ) : endpoints.data.length === 0 ? (
              <Empty title="No endpoints yet">
                <p>Register one above to receive events.</p>
              </Empty>
            ) : (
              <div className="stack">
                {endpoints.data.map((endpoint) => (
                  <EndpointCard
                    key={endpoint.id}
                    endpoint={endpoint}
                    workspaceName={workspaceName(endpoint.workspaceId)}
                  />
                ))}
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}

function CreateEndpoint({ workspaces }: { workspaces: { id: string; name: string }[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [events, setEvents] = useState<CallbackEventType[]>(['deletion_request.completed', 'deletion_request.failed']);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const create = useMutation(
    trpc.callbacks.create.mutationOptions({
      onSuccess: async (endpoint) => {
        setCreated({ url: endpoint.url, secret: endpoint.secret });
        await queryClient.invalidateQueries({ queryKey: trpc.callbacks.list.queryKey() });
      },
    }),
  );
  const { errors, onSubmit, onInput } = useFormSubmit(
    createCallbackEndpointInputSchema,
    (data, form) => create.mutate(data, { onSuccess: () => form.reset() }),
    (values) => ({ url: values.url, description: values.description, events, workspaceId: values.workspaceId || null }),
  );
  const serverError = create.error ? toDisplayError(create.error) : null;
  return (
    <section className="card" aria-labelledby="create-endpoint">
      <h2 id="create-endpoint">Register an endpoint</h2>
      <form className="inline-form" noValidate onSubmit={onSubmit} onInput={onInput}>
        <TextField
          label="URL"
          name="url"
          type="url"
          placeholder="https://hooks.example.org/deletions"
          error={errors.url ?? serverError?.fieldErrors.url}
        />
        <TextField
          label="Description"
          name="description"
          placeholder="CRM sync"
          error={errors.description ?? serverError?.fieldErrors.description}
        />
        <SelectField
          label="Workspace"
          name="workspaceId"
          defaultValue=""
          error={errors.workspaceId ?? serverError?.fieldErrors.workspaceId}
        >
          <option value="">All workspaces</option>
          {workspaces.map((workspace) => (
            <option key={workspace.id} value={workspace.id}>
              {workspace.name}
            </option>
          ))}
        </SelectField>
        <fieldset className="token-limits">
          <legend>Events</legend>
          {CALLBACK_EVENT_TYPES.map((type) => (
            <label key={type} className="checkbox-label">
              <input
                type="checkbox"
                name="event"
                value={type}
                checked={events.includes(type)}
                onChange={(e) => setEvents(e.target.checked ? [...events, type] : events.filter((t) => t !== type))}
              />
              <code>{type}</code> {CALLBACK_EVENT_LABELS[type]}
            </label>
          ))}
          {errors.events ? <p className="field-error">{errors.events}</p> : null}
        </fieldset>
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Registering…' : 'Register endpoint'}
        </button>
      </form>
      <FormError message={serverError && !Object.keys(serverError.fieldErrors).length ? serverError.message : null} />
      {created ? (
        <NewSecret
          title={`Copy the signing secret of ${created.url} now.`}
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      ) : null}
    </section>
  );
}
