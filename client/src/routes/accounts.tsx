import { integrationTypeInfo } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ConfirmDialog } from '../components/dialog';
import { SelectField } from '../components/field';
import { ACCOUNT_TYPE_LABEL, AccountForm, type Account } from '../components/integrations/account-form';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { useTimeZoneChoice } from '../lib/use-time-zone';
import { useTRPC } from '../trpc';
import { integrationTypeLabel } from '@shared/integrations/labels';

const TYPES = Object.values(integrationTypeInfo).filter((info) => info !== undefined);

export function Component() {
  const trpc = useTRPC();
  const me = useMe();
  const [search, setSearch] = useSearchParams();
  const accounts = useQuery(trpc.accounts.list.queryOptions({}, { enabled: me.isAdmin }));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const oauth = search.get('oauth');
  const header = (
    <PageHeader
      title="Accounts"
      description="Credentials that integrations use. Secrets are write-only: they are never shown again after saving."
      actions={
        me.isAdmin && !creating ? (
          <button type="button" className="button button-primary" onClick={() => (setCreated(null), setCreating(true))}>
            New account
          </button>
        ) : null
      }
    />
  );
  if (!me.isAdmin)
    return (
      <>
        {header}
        <p className="callout">Only owners and admins can manage accounts.</p>
      </>
    );
  if (accounts.isPending)
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (accounts.isError)
    return (
      <>
        {header}
        <ErrorState error={accounts.error} onRetry={() => void accounts.refetch()} />
      </>
    );
  return (
    <>
      {header}
      {oauth ? (
        <div
          className={`callout ${oauth === 'connected' ? 'callout-success' : 'callout-danger'}`}
          role={oauth === 'connected' ? 'status' : 'alert'}
        >
          <p>
            {search.get('message') ??
              (oauth === 'connected' ? 'Account connected.' : 'The account could not be connected.')}
          </p>
          <button type="button" className="link-button" onClick={() => setSearch({}, { replace: true })}>
            Dismiss
          </button>
        </div>
      ) : null}
      {created ? (
        <p className="callout callout-success" role="status">
          Account “{created}” saved. Its secrets are stored encrypted and will not be shown again.
        </p>
      ) : null}
      {creating ? (
        <NewAccount
          onDone={(account) => {
            setCreating(false);
            if (account) setCreated(account.name);
          }}
        />
      ) : null}
      {accounts.data.length === 0 ? (
        <Empty title="No accounts yet">
          <p>Create one here, or while connecting an integration.</p>
        </Empty>
      ) : (
        <div className="cards-grid">
          {accounts.data.map((account) => (
            <AccountCard key={account.id} account={account} />
          ))}
        </div>
      )}
    </>
  );
}

function NewAccount({ onDone }: { onDone: (account: Account | null) => void }) {
  const [type, setType] = useState<IntegrationType>('WEBHOOK');
  return (
    <section className="card" aria-labelledby="new-account">
      <h2 id="new-account">New account</h2>
      <SelectField
        label="For integrations of type"
        value={type}
        onChange={(e) => setType(e.target.value as IntegrationType)}
      >
        {TYPES.map((t) => (
          <option key={t.type} value={t.type}>
            {t.label}
          </option>
        ))}
      </SelectField>
      <AccountForm key={type} integrationType={type} onSaved={onDone} onCancel={() => onDone(null)} />
    </section>
  );
}

function AccountCard({ account }: { account: Account }) {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const [replacing, setReplacing] = useState(false);
  const [replaced, setReplaced] = useState(false);
  const remove = useMutation(
    trpc.accounts.delete.mutationOptions({
      onSuccess: async () => {
        setConfirm(false);
        await queryClient.invalidateQueries({ queryKey: trpc.accounts.list.queryKey() });
      },
    }),
  );
  const hints = Object.entries((account.secretHints ?? {}) as Record<string, string>);
  const usedBy = account.integrations;
  return (
    <article className="card" aria-label={account.name}>
      <h3>{account.name}</h3>
      <dl className="facts">
        <div>
          <dt>For</dt>
          <dd>{integrationTypeLabel(account.integrationType)}</dd>
        </div>
        <div>
          <dt>Kind</dt>
          <dd>{ACCOUNT_TYPE_LABEL[account.type as keyof typeof ACCOUNT_TYPE_LABEL] ?? account.type}</dd>
        </div>
        <div>
          <dt>Stored</dt>
          <dd>
            {hints.length === 0 ? (
              <span className="muted">no secrets</span>
            ) : (
              <ul className="hint-list" aria-label={`Stored credentials of ${account.name}`}>
                {hints.map(([key, hint]) => (
                  <li key={key}>
                    <span className="muted">{key}</span> <code>{hint}</code>
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </div>
        <div>
          <dt>Used by</dt>
          <dd>
            {usedBy.length
              ? usedBy.map((i, n) => (
                  <span key={i.id}>
                    {n > 0 ? ', ' : ''}
                    <Link to={`/integrations/${i.id}`}>{i.name}</Link>
                  </span>
                ))
              : 'No integration'}
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{formatDate(account.updatedAt, zone)}</dd>
        </div>
      </dl>
      {replaced && !replacing ? (
        <p className="muted small" role="status">
          Secrets replaced.
        </p>
      ) : null}
      {replacing ? (
        <AccountForm
          integrationType={account.integrationType}
          replace={account}
          onSaved={() => (setReplacing(false), setReplaced(true))}
          onCancel={() => setReplacing(false)}
        />
      ) : (
        <div className="row wrap ir-actions">
          <button
            type="button"
            className="button button-small"
            onClick={() => (setReplaced(false), setReplacing(true))}
          >
            Replace secrets
          </button>
          <button
            type="button"
            className="button button-small button-danger-outline"
            onClick={() => (remove.reset(), setConfirm(true))}
          >
            Delete
          </button>
        </div>
      )}
      <ConfirmDialog
        open={confirm}
        title={`Delete ${account.name}?`}
        confirmLabel="Delete account"
        destructive
        busy={remove.isPending}
        error={remove.error ? toDisplayError(remove.error).message : null}
        onCancel={() => setConfirm(false)}
        onConfirm={() => remove.mutate({ accountId: account.id })}
      >
        <p>
          {usedBy.length
            ? `It is used by ${usedBy.map((i) => i.name).join(', ')}.`
            : 'Its stored credentials are destroyed.'}
        </p>
      </ConfirmDialog>
    </article>
  );
}
