import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CopyableValue } from '../copy-button';
import { SelectField, TextField } from '../field';
import { FormError } from '../states';
import { toDisplayError } from '../../lib/errors';
import { useTRPC } from '../../trpc';

type Kind = 'sql' | 'stripe' | 'auth0' | 'hubspot' | 'webhook';
const KIND_LABEL: Record<Kind, string> = {
  sql: 'SQL on one of your databases',
  stripe: 'Stripe customers by email',
  auth0: 'Auth0 users by email',
  hubspot: 'HubSpot contacts by email',
  webhook: 'Webhook',
};

type ConnectorKind = 'stripe' | 'auth0' | 'hubspot';
/** A connector lookup reads with an account of the same integration and finds one kind of id. */
const CONNECTOR: Record<ConnectorKind, { integrationType: string; account: string; ids: string; example: string }> = {
  stripe: { integrationType: 'STRIPE', account: 'Stripe account', ids: 'Customer ids', example: 'stripe_customer_id' },
  auth0: { integrationType: 'AUTH0', account: 'Auth0 account', ids: 'User ids', example: 'auth0_user_id' },
  hubspot: {
    integrationType: 'HUBSPOT',
    account: 'HubSpot account',
    ids: 'Contact ids',
    example: 'hubspot_contact_id',
  },
};
const isConnector = (kind: Kind): kind is ConnectorKind => kind in CONNECTOR;

/** "user_id=user_id, stripe_customer_id=stripe_customer_id" → a column → type map; null when a pair is malformed. */
export function parseColumnMap(text: string): Record<string, string> | null {
  const pairs = text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean);
  const map: Record<string, string> = {};
  for (const pair of pairs) {
    const [column, type, ...rest] = pair.split('=').map((part) => part.trim());
    if (!column || !type || rest.length > 0) return null;
    map[column] = type;
  }
  return pairs.length > 0 ? map : null;
}

/**
 * A workspace's identity lookups: run in order before the fan-out, each finds more of the
 * person's identifiers (a SELECT on one of your databases, a connector's search by email, or a webhook of yours).
 */
export function IdentityLookupsPanel({ workspaceId, workspaceName }: { workspaceId: string; workspaceName: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const lookups = useQuery(trpc.identities.listLookups.queryOptions({ workspaceId }));
  const accounts = useQuery(trpc.accounts.list.queryOptions({}));
  const [kind, setKind] = useState<Kind>('sql');
  const types = useQuery(trpc.identities.listTypes.queryOptions());
  const [secret, setSecret] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: trpc.identities.listLookups.queryKey({ workspaceId }) });
  const create = useMutation(
    trpc.identities.createLookup.mutationOptions({
      onSuccess: async (created) => {
        setSecret(created.secret ?? null);
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.identities.deleteLookup.mutationOptions({ onSuccess: refresh }));
  const databaseAccounts = (accounts.data ?? []).filter(
    (account) => account.integrationType === 'POSTGRES' || account.integrationType === 'MYSQL',
  );
  const connectorAccounts = isConnector(kind)
    ? (accounts.data ?? []).filter((account) => account.integrationType === CONNECTOR[kind].integrationType)
    : [];
  const serverError = create.error ? toDisplayError(create.error) : null;
  return (
    <section className="api-key" aria-label={`Identity lookups of ${workspaceName}`}>
      <h3>Identity lookups</h3>
      <p className="muted small">
        Before a request is sent anywhere, these find the person&apos;s other identifiers, in order. Every identifier
        found is recorded on the request with its source.
      </p>
      {lookups.data && lookups.data.length > 0 ? (
        <ol>
          {lookups.data.map((lookup) => (
            <li key={lookup.id}>
              <strong>{lookup.name}</strong>{' '}
              <span className="muted small">{KIND_LABEL[String(lookup.config.kind) as Kind] ?? 'lookup'}</span>{' '}
              <button
                type="button"
                className="link-button small"
                disabled={remove.isPending}
                onClick={() => remove.mutate({ lookupId: lookup.id })}
                aria-label={`Remove the lookup ${lookup.name}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted small">None: integrations receive the identifiers given with each request.</p>
      )}
      {secret ? (
        <div className="stack">
          <p className="small">Signing secret of the new webhook lookup, shown this once:</p>
          <CopyableValue value={secret} label="Signing secret" />
        </div>
      ) : null}
      <form
        className="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const text = (name: string) => String(form.get(name) ?? '').trim();
          setFormError(null);
          setSecret(null);
          if (kind === 'sql') {
            const columns = parseColumnMap(text('columns'));
            if (!columns)
              return setFormError('Map each column to a type: user_id=user_id, stripe_id=stripe_customer_id');
            create.mutate({
              workspaceId,
              kind,
              name: text('name'),
              accountId: text('accountId'),
              query: text('query'),
              columns,
              timeoutMs: 5_000,
              maxRows: 10,
            });
          } else if (isConnector(kind)) {
            const common = {
              workspaceId,
              name: text('name'),
              accountId: text('accountId'),
              identifierType: text('identifierType'),
              maxIdentifiers: 20,
            };
            create.mutate(kind === 'auth0' ? { ...common, kind, domain: text('domain') } : { ...common, kind });
          } else
            create.mutate({
              workspaceId,
              kind,
              name: text('name'),
              url: text('url'),
              timeoutMs: 5_000,
              maxIdentifiers: 20,
            });
        }}
      >
        <SelectField label="Kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          <option value="sql">{KIND_LABEL.sql}</option>
          <option value="stripe">{KIND_LABEL.stripe}</option>
          <option value="auth0">{KIND_LABEL.auth0}</option>
          <option value="hubspot">{KIND_LABEL.hubspot}</option>
          <option value="webhook">{KIND_LABEL.webhook}</option>
        </SelectField>
        <TextField label="Name" name="name" required error={serverError?.fieldErrors.name} />
        {kind === 'sql' ? (
          <>
            <AccountSelect
              label="Database account"
              accounts={databaseAccounts}
              error={serverError?.fieldErrors.accountId}
            />
            <TextField
              label="Query"
              name="query"
              placeholder="SELECT id AS user_id FROM users WHERE email = {{email}}"
              hint="One SELECT, run read-only with a timeout; {{type}} placeholders are sent as parameters."
              error={serverError?.fieldErrors.query}
            />
            <TextField
              label="Columns"
              name="columns"
              placeholder="user_id=user_id"
              hint="Each result column and the identifier type it holds, separated by commas."
            />
          </>
        ) : isConnector(kind) ? (
          <>
            <AccountSelect
              label={CONNECTOR[kind].account}
              accounts={connectorAccounts}
              error={serverError?.fieldErrors.accountId}
            />
            {kind === 'auth0' ? (
              <TextField
                label="Tenant domain"
                name="domain"
                placeholder="acme.eu.auth0.com"
                hint="The tenant's own domain, not a custom login domain."
                error={serverError?.fieldErrors.domain}
              />
            ) : null}
            <SelectField
              label={`${CONNECTOR[kind].ids} are of type`}
              name="identifierType"
              hint={`Add a type such as ${CONNECTOR[kind].example} in the organization's settings first.`}
              error={serverError?.fieldErrors.identifierType}
            >
              {(types.data ?? []).map((type) => (
                <option key={type.name} value={type.name}>
                  {type.name}
                </option>
              ))}
            </SelectField>
          </>
        ) : (
          <TextField
            label="URL"
            name="url"
            type="url"
            hint="Receives the known identifiers (signed like callbacks) and answers {identifiers: [{type, value}]}."
            error={serverError?.fieldErrors.url}
          />
        )}
        <FormError message={formError ?? (serverError ? serverError.message : null)} />
        <div>
          <button type="submit" className="button button-small" disabled={create.isPending}>
            {create.isPending ? 'Adding…' : 'Add lookup'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** The account a lookup runs with, among those of the integration type it needs. */
function AccountSelect({
  label,
  accounts,
  error,
}: {
  label: string;
  accounts: { id: string; name: string }[];
  error?: string;
}) {
  return (
    <SelectField label={label} name="accountId" error={error}>
      {accounts.map((account) => (
        <option key={account.id} value={account.id}>
          {account.name}
        </option>
      ))}
    </SelectField>
  );
}
