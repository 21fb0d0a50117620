import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../components/dialog';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { Empty, ErrorState, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { formatDate, INTEGRATION_TYPE_LABEL } from '../lib/format';
import { useTRPC, type RouterOutputs } from '../trpc';

type Account = RouterOutputs['accounts']['list'][number];

export function Component() {
  const trpc = useTRPC();
  const me = useMe();
  const accounts = useQuery(trpc.accounts.list.queryOptions({}, { enabled: me.isAdmin }));
  const integrations = useQuery(trpc.integrations.list.queryOptions({}, { enabled: me.isAdmin }));
  const header = <PageHeader title="Accounts" description="Credentials that integrations use. Secrets are write-only: they are never shown again after saving." />;
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
  const usedBy = (accountId: string) => (integrations.data ?? []).filter((i) => i.accountId === accountId).map((i) => i.name);
  return (
    <>
      {header}
      <p className="callout small">Creating accounts and replacing secrets from the dashboard is not available yet.</p>
      {accounts.data.length === 0 ? (
        <Empty title="No accounts yet" />
      ) : (
        <div className="cards-grid">
          {accounts.data.map((account) => (
            <AccountCard key={account.id} account={account} usedBy={usedBy(account.id)} />
          ))}
        </div>
      )}
    </>
  );
}

function AccountCard({ account, usedBy }: { account: Account; usedBy: string[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const remove = useMutation(
    trpc.accounts.delete.mutationOptions({
      onSuccess: async () => {
        setConfirm(false);
        await queryClient.invalidateQueries({ queryKey: trpc.accounts.list.queryKey() });
      },
    }),
  );
  return (
    <article className="card" aria-label={account.name}>
      <h3>{account.name}</h3>
      <dl className="facts">
        <div>
          <dt>For</dt>
          <dd>{INTEGRATION_TYPE_LABEL[account.integrationType] ?? account.integrationType}</dd>
        </div>
        <div>
          <dt>Kind</dt>
          <dd>{account.type.replace(/_/g, ' ').toLowerCase()}</dd>
        </div>
        <div>
          <dt>Used by</dt>
          <dd>{usedBy.length ? usedBy.join(', ') : 'No integration'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDate(account.createdAt)}</dd>
        </div>
      </dl>
      <div className="ir-actions">
        <button type="button" className="button button-small button-danger-outline" onClick={() => (remove.reset(), setConfirm(true))}>
          Delete
        </button>
      </div>
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
        <p>{usedBy.length ? `It is used by ${usedBy.join(', ')}; the service refuses to delete it while in use.` : 'Its stored credentials are destroyed.'}</p>
      </ConfirmDialog>
    </article>
  );
}
