import { integrationTypeInfo } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../trpc';
import { SelectField } from '../field';
import { ErrorState, Loading } from '../states';
import { ACCOUNT_TYPE_LABEL, AccountForm, type Account } from './account-form';
import type { DraftAccount } from './connection-test';

const NEW = '__new__';

/** Hints of stored credentials, such as "host: db.internal, password: ••••". */
export function secretHintText(account: Pick<Account, 'secretHints'>): string {
  const hints = (account.secretHints ?? {}) as Record<string, string>;
  return Object.entries(hints)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
}

/** Pick an account of the integration's type, or create one inline (it is selected once saved). */
export function AccountChooser(props: {
  integrationType: IntegrationType;
  value: string | null;
  onChange: (accountId: string | null) => void;
  error?: string;
  label?: string;
  /** The credentials typed in the new-account form, not saved yet (null when it is closed). */
  onDraft?: (draft: DraftAccount | null) => void;
}) {
  const trpc = useTRPC();
  const info = integrationTypeInfo[props.integrationType];
  const accounts = useQuery(trpc.accounts.list.queryOptions({ integrationType: props.integrationType }));
  const [creating, setCreating] = useState(false);
  if (accounts.isPending) return <Loading label="Loading accounts…" />;
  if (accounts.isError) return <ErrorState error={accounts.error} onRetry={() => void accounts.refetch()} />;
  const selected = accounts.data.find((a) => a.id === props.value);
  const noneLabel = info?.accountRequired === false ? 'No account (no secrets)' : 'Choose an account';
  const showForm = creating || (accounts.data.length === 0 && info?.accountRequired !== false);
  return (
    <div className="account-chooser">
      <SelectField
        label={props.label ?? 'Account'}
        value={showForm ? NEW : (props.value ?? '')}
        error={props.error}
        hint={
          selected
            ? `${ACCOUNT_TYPE_LABEL[selected.type as keyof typeof ACCOUNT_TYPE_LABEL] ?? selected.type}: ${secretHintText(selected)}`
            : undefined
        }
        onChange={(e) => {
          if (e.target.value === NEW) return setCreating(true);
          setCreating(false);
          props.onChange(e.target.value || null);
        }}
      >
        <option value="" disabled={info?.accountRequired !== false}>
          {noneLabel}
        </option>
        {accounts.data.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
        <option value={NEW}>New account…</option>
      </SelectField>
      {showForm ? (
        <div className="card inset">
          <h3>New {info?.label ?? ''} account</h3>
          <p className="muted small">
            Save the account here first (“Save account”): it is then selected, and the integration uses it.
          </p>
          <AccountForm
            integrationType={props.integrationType}
            onSaved={(account) => {
              setCreating(false);
              props.onChange(account.id);
            }}
            onCancel={
              accounts.data.length > 0 || info?.accountRequired === false ? () => setCreating(false) : undefined
            }
            onDraft={props.onDraft}
          />
        </div>
      ) : null}
    </div>
  );
}
