import {
  accountSecretSchemas,
  integrationCatalogue,
  integrationTypeInfo,
  isSecretAccountField,
  OAUTH_PROVIDER_BY_TYPE,
  type AccountType,
} from '@shared/integrations';
import { nameSchema } from '@shared/schemas/auth';
import type { IntegrationType } from '@shared/statuses';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useLocation } from 'react-router';
import { toDisplayError } from '../../lib/errors';
import { focusFirstInvalid, validateForm } from '../../lib/form';
import { defaultsFor, formSchemaOf, pruneEmpty, type Path } from '../../lib/schema-form';
import { useTRPC, type RouterOutputs } from '../../trpc';
import { SelectField, TextField } from '../field';
import { FormError } from '../states';
import { SchemaFields } from '../schema-form/schema-fields';

export type Account = RouterOutputs['accounts']['list'][number];

export const ACCOUNT_TYPE_LABEL: Record<AccountType, string> = {
  API_KEY: 'API key',
  API_KEY_SECRET: 'API key and secret',
  OAUTH: 'OAuth token',
  DATABASE: 'Database credentials',
  KEY_VALUE: 'Key-value secrets',
  REDIS: 'Redis connection',
  AWS: 'AWS access key',
  SNOWFLAKE: 'Snowflake key pair',
  GOOGLE_SERVICE_ACCOUNT: 'Google service account key',
};

const SECRET_HINTS: Partial<Record<AccountType, Record<string, string>>> = {
  KEY_VALUE: {
    '': 'Each name is usable as {{name}} in the webhook URL, headers and body. Values are never shown again.',
  },
  DATABASE: {
    sslMode: 'Use require or verify-full for databases reached over a network.',
    port: 'Empty: 5432 for PostgreSQL, 3306 for MySQL/MariaDB.',
  },
  REDIS: { database: 'The logical database number (SELECT), 0 when empty.' },
  SNOWFLAKE: {
    account: 'The account identifier, such as myorg-myaccount (the host name before .snowflakecomputing.com).',
    privateKey:
      "The user's unencrypted private key in PEM (-----BEGIN PRIVATE KEY-----); its public key is set on the user (RSA_PUBLIC_KEY).",
    role: 'Empty: the user’s default role. The role needs SELECT, UPDATE and DELETE on the tables of the rules.',
  },
  AWS: {
    endpoint:
      'Only for S3-compatible stores (MinIO, Cloudflare R2...) or a private endpoint of S3; empty for AWS itself.',
  },
  GOOGLE_SERVICE_ACCOUNT: {
    serviceAccountKey:
      'The JSON key file of a service account with BigQuery Data Editor and BigQuery Job User roles; paste its whole content. It is never shown again.',
  },
};

/** The AWS account's endpoint hint speaks of the store it is for. */
const DYNAMODB_HINTS = {
  endpoint: 'Only for DynamoDB Local or a private (VPC) endpoint of DynamoDB; empty for AWS itself.',
};
const hintsFor = (type: AccountType, integrationType: IntegrationType) =>
  type === 'AWS' && integrationType === 'DYNAMODB' ? DYNAMODB_HINTS : SECRET_HINTS[type];

/** Public fields (host, user...) are plain inputs; everything else is typed as a password. */
const isSecretFor = (type: AccountType) => (path: Path) => {
  if (type === 'KEY_VALUE') return true;
  const key = path[1];
  return typeof key === 'string' && isSecretAccountField(type, key);
};

/** Starts the OAuth flow for an integration type, or says why it cannot. */
export function OAuthConnectButton(props: {
  integrationType: IntegrationType;
  accountName?: string;
  accountId?: string;
  label?: string;
}) {
  const trpc = useTRPC();
  const location = useLocation();
  const providers = useQuery(trpc.accounts.oauthProviders.queryOptions(undefined, { staleTime: 5 * 60_000 }));
  const provider = providers.data?.find((p) => p.integrationTypes.includes(props.integrationType));
  const connect = useMutation(
    trpc.accounts.connectOAuth.mutationOptions({
      onSuccess: (result) => window.location.assign(result.authorizationUrl),
    }),
  );
  if (!OAUTH_PROVIDER_BY_TYPE[props.integrationType] || providers.isPending) return null;
  if (!provider?.configured)
    return (
      <p className="muted small">
        {provider
          ? `${provider.label} OAuth is not configured on this server, so accounts cannot be connected with it.`
          : null}
      </p>
    );
  return (
    <div>
      <button
        type="button"
        className="button button-primary"
        disabled={connect.isPending}
        onClick={() =>
          connect.mutate({
            integrationType: props.integrationType,
            accountName: props.accountName || undefined,
            accountId: props.accountId,
            returnTo: location.pathname + location.search,
          })
        }
      >
        {connect.isPending ? 'Opening…' : (props.label ?? `Connect with ${provider.label}`)}
      </button>
      <FormError message={connect.error ? toDisplayError(connect.error).message : null} />
    </div>
  );
}

/**
 * Creates an account for an integration type, or replaces an account's secrets. Not a <form>
 * of its own so it can sit inside the integration form; Enter saves the account.
 */
export function AccountForm(props: {
  integrationType: IntegrationType;
  replace?: Account;
  onSaved: (account: Account) => void;
  onCancel?: () => void;
  /** Follows the credentials as typed (a connection test can use them before they are saved); null once the form closes. */
  onDraft?: (draft: { type: AccountType; secrets: unknown } | null) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const info = integrationTypeInfo[props.integrationType];
  const allowed = (props.replace ? [props.replace.type] : (info?.accountTypes ?? [])) as AccountType[];
  const [type, setType] = useState<AccountType>(allowed[0] ?? 'API_KEY');
  const schema = useMemo(() => formSchemaOf(accountSecretSchemas[type]), [type]);
  const [name, setName] = useState('');
  const [secrets, setSecrets] = useState<unknown>(() => defaultsFor(schema));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const group = useRef<HTMLDivElement>(null);
  const done = async (account: Account) => {
    await queryClient.invalidateQueries({ queryKey: trpc.accounts.list.queryKey() });
    props.onSaved(account);
  };
  const create = useMutation(trpc.accounts.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(trpc.accounts.update.mutationOptions({ onSuccess: done }));
  const mutation = props.replace ? update : create;
  const serverError = mutation.error ? toDisplayError(mutation.error) : null;
  const allErrors = { ...serverError?.fieldErrors, ...errors };
  const oauthByFlow = type === 'OAUTH' && Boolean(OAUTH_PROVIDER_BY_TYPE[props.integrationType]);
  const { onDraft } = props;
  useEffect(() => {
    onDraft?.(oauthByFlow ? null : { type, secrets: pruneEmpty(schema, secrets) });
  }, [onDraft, oauthByFlow, type, schema, secrets]);
  useEffect(() => () => onDraft?.(null), [onDraft]);

  const save = () => {
    const values = pruneEmpty(schema, secrets);
    const checked = validateForm(accountSecretSchemas[type], values);
    const nameCheck = props.replace ? ({ ok: true } as const) : validateForm(nameSchema, name);
    const next: Record<string, string> = {};
    if (!checked.ok)
      for (const [k, m] of Object.entries(checked.errors)) next[k === '_form' ? 'secrets' : `secrets.${k}`] = m;
    if (!nameCheck.ok) next.name = Object.values(nameCheck.errors)[0]!;
    setErrors(next);
    if (Object.keys(next).length > 0) return focusFirstInvalid(group.current, next);
    if (props.replace) update.mutate({ accountId: props.replace.id, secrets: values });
    else create.mutate({ name: name.trim(), integrationType: props.integrationType, type, secrets: values });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.target as HTMLElement).tagName === 'INPUT') {
      event.preventDefault();
      save();
    }
  };
  return (
    <div
      ref={group}
      className="account-form"
      role="group"
      aria-label={props.replace ? `Replace secrets of ${props.replace.name}` : 'New account'}
      onKeyDown={onKeyDown}
    >
      {props.replace ? (
        <p className="muted small">
          Enter the new credentials in full: they replace the stored ones, which are never shown.
        </p>
      ) : (
        <>
          <p className="muted small">Credentials: {integrationCatalogue[props.integrationType].credentials}.</p>
          <TextField
            label="Account name"
            data-field="name"
            value={name}
            error={allErrors.name}
            onChange={(e) => setName(e.target.value)}
          />
          {allowed.length > 1 ? (
            <SelectField
              label="Kind of credentials"
              value={type}
              error={allErrors.type}
              onChange={(e) => {
                const next = e.target.value as AccountType;
                setType(next);
                setSecrets(defaultsFor(formSchemaOf(accountSecretSchemas[next])));
                setErrors({});
              }}
            >
              {allowed.map((t) => (
                <option key={t} value={t}>
                  {ACCOUNT_TYPE_LABEL[t]}
                </option>
              ))}
            </SelectField>
          ) : null}
        </>
      )}
      {oauthByFlow ? (
        <OAuthConnectButton
          integrationType={props.integrationType}
          accountName={name}
          accountId={props.replace?.id}
          label={props.replace ? 'Reconnect' : undefined}
        />
      ) : (
        <>
          <SchemaFields
            key={type}
            schema={schema}
            value={secrets}
            onChange={setSecrets}
            errors={allErrors}
            path={['secrets']}
            options={{
              isSecret: isSecretFor(type),
              hints: hintsFor(type, props.integrationType),
              labels: { apiKey: 'API key', secretKey: 'Secret key', sslMode: 'SSL mode', tls: 'TLS' },
            }}
          />
          <FormError
            message={serverError && Object.keys(serverError.fieldErrors).length === 0 ? serverError.message : null}
          />
          <div className="row">
            <button type="button" className="button button-primary" disabled={mutation.isPending} onClick={save}>
              {mutation.isPending ? 'Saving…' : props.replace ? 'Replace secrets' : 'Save account'}
            </button>
            {props.onCancel ? (
              <button type="button" className="button" onClick={props.onCancel}>
                Cancel
              </button>
            ) : null}
          </div>
        </>
      )}
    </div>
  );
}
