import { ConsumesTypeCard } from '../components/identities/consumes-type-card';
import { INTEGRATION_CATEGORIES, integrationCatalogue, integrationTypeInfo } from '@shared/integrations';
import { usesHashKey } from '@shared/integrations/sql-columns';
import { nameSchema } from '@shared/schemas/auth';
import type { IntegrationType } from '@shared/statuses';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { SelectField, TextField } from '../components/field';
import { AccountChooser } from '../components/integrations/account-chooser';
import { HashKeyRotation } from '../components/integrations/hash-key-rotation';
import { ConnectionTest, type DraftAccount } from '../components/integrations/connection-test';
import { SwapAccount } from '../components/integrations/swap-account';
import {
  ConcurrencyField,
  parseMaxConcurrency,
  parseMaxRequestsPerSecond,
  RateField,
  vendorRateText,
} from '../components/integrations/call-limit-fields';
import { configEditorFor } from '../components/integrations/config-editors';
import { useMe } from '../components/me-context';
import { PageHeader } from '../components/shell';
import { ErrorState, FormError, Loading } from '../components/states';
import { toDisplayError } from '../lib/errors';
import { validateForm } from '../lib/form';
import { formSchemaOf } from '../lib/schema-form';
import { useTRPC, type RouterOutputs } from '../trpc';

type Integration = RouterOutputs['integrations']['get'];
const TYPES = Object.values(integrationTypeInfo);

/** Types whose label, category or kind of data matches every word of the search. */
export function matchingTypes(query: string): typeof TYPES {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return TYPES.filter((t) => {
    const entry = integrationCatalogue[t.type];
    const text = `${t.label} ${t.type} ${entry.category} ${entry.deletes}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** What the catalogue says about the chosen type: category, capabilities, vendor docs. */
function CatalogueSummary({ type }: { type: IntegrationType }) {
  const entry = integrationCatalogue[type];
  const capabilities = [
    entry.capabilities.status ? 'status polled' : 'synchronous',
    entry.capabilities.cancel ? 'can be canceled' : null,
    entry.capabilities.verify ? 'verified after deletion' : null,
  ].filter(Boolean);
  return (
    <p className="muted small" aria-label="About this integration">
      {entry.category} · deletes {entry.deletes} · {capabilities.join(' · ')} · {entry.completion}
      {entry.docsUrl ? (
        <>
          {' · '}
          <a href={entry.docsUrl} target="_blank" rel="noreferrer">
            vendor docs
          </a>
        </>
      ) : null}
    </p>
  );
}

export function Component() {
  const { integrationId } = useParams();
  const trpc = useTRPC();
  const me = useMe();
  const existing = useQuery(
    trpc.integrations.get.queryOptions({ integrationId: integrationId ?? '' }, { enabled: Boolean(integrationId) }),
  );
  const title = integrationId ? 'Edit integration' : 'Connect an integration';
  const header = (
    <>
      <p className="breadcrumb">
        <Link to="/integrations">Integrations</Link> /
      </p>
      <PageHeader
        title={integrationId && existing.data ? existing.data.name : title}
        description={
          integrationId ? undefined : 'Where subject data lives: every new request of the workspace is sent here.'
        }
      />
    </>
  );
  if (!me.isAdmin)
    return (
      <>
        {header}
        <p className="callout">Only owners and admins can connect and change integrations.</p>
      </>
    );
  if (integrationId && existing.isPending)
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (integrationId && existing.isError)
    return (
      <>
        {header}
        <ErrorState error={existing.error} onRetry={() => void existing.refetch()} />
      </>
    );
  return (
    <>
      {header}
      <IntegrationForm key={integrationId ?? 'new'} existing={existing.data} />
      {existing.data && usesHashKey(existing.data.type) ? <HashKeyRotation integrationId={existing.data.id} /> : null}
      {existing.data ? (
        <ConsumesTypeCard
          integrationId={existing.data.id}
          consumesType={existing.data.consumesType}
          config={existing.data.config}
        />
      ) : null}
    </>
  );
}

function IntegrationForm({ existing }: { existing?: Integration }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const workspaces = useQuery(trpc.workspaces.list.queryOptions());
  const [type, setType] = useState<IntegrationType>(
    existing?.type ??
      ((search.get('type') as IntegrationType) in integrationTypeInfo
        ? (search.get('type') as IntegrationType)
        : 'WEBHOOK'),
  );
  const info = integrationTypeInfo[type];
  const schema = useMemo(() => formSchemaOf(info.configSchema), [info]);
  const editor = configEditorFor(type);
  const [chosenWorkspaceId, setWorkspaceId] = useState(existing?.workspaceId ?? search.get('workspaceId') ?? '');
  const workspaceId = chosenWorkspaceId || workspaces.data?.[0]?.id || '';
  const [name, setName] = useState(existing?.name ?? '');
  const [concurrency, setConcurrency] = useState(existing?.maxConcurrency?.toString() ?? '');
  // A new integration starts at its vendor's documented rate.
  const [rate, setRate] = useState(existing ? (existing.maxRequestsPerSecond?.toString() ?? '') : vendorRateText(type));
  const [accountId, setAccountId] = useState<string | null>(existing?.accountId ?? null);
  const [draftAccount, setDraftAccount] = useState<DraftAccount | null>(null);
  const [config, setConfig] = useState<unknown>(() => existing?.config ?? editor.initial(schema));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [typeQuery, setTypeQuery] = useState('');
  const shownTypes = useMemo(() => matchingTypes(typeQuery), [typeQuery]);
  const [issuesFromDryRun, setIssuesFromDryRun] = useState<Record<string, string>>({});
  const done = async (integration: { id: string; workspaceId: string }) => {
    await queryClient.invalidateQueries({ queryKey: trpc.integrations.list.queryKey() });
    await queryClient.invalidateQueries({
      queryKey: trpc.integrations.get.queryKey({ integrationId: integration.id }),
    });
    await navigate(`/integrations?workspaceId=${integration.workspaceId}&saved=${integration.id}`);
  };
  const create = useMutation(trpc.integrations.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(trpc.integrations.update.mutationOptions({ onSuccess: done }));
  const save = existing ? update : create;
  const serverError = save.error ? toDisplayError(save.error) : null;
  const allErrors = { ...issuesFromDryRun, ...serverError?.fieldErrors, ...errors };

  const chooseType = (next: IntegrationType) => {
    setType(next);
    setRate(vendorRateText(next));
    setAccountId(null);
    setConfig(configEditorFor(next).initial(formSchemaOf(integrationTypeInfo[next].configSchema)));
    setErrors({});
    setSubmitted(false);
  };

  const configToSend = () => editor.toSend(schema, config);

  /** Every client-side check, with the server's own schemas; keys are the server's issue paths. */
  const validate = (configValue: unknown, nameValue: string) => {
    const next: Record<string, string> = {};
    const checked = validateForm(info.configSchema, configValue);
    if (!checked.ok)
      for (const [k, m] of Object.entries(checked.errors)) next[k === '_form' ? 'config' : `config.${k}`] = m;
    const nameCheck = nameSchema.safeParse(nameValue);
    if (!nameCheck.success) next.name = nameCheck.error.issues[0]!.message;
    if (!existing && !workspaceId) next.workspaceId = 'Choose a workspace';
    if (!existing && info.accountRequired && !accountId)
      next.accountId = 'Choose an account, or save the new one with “Save account” first';
    const limit = parseMaxConcurrency(concurrency);
    if ('error' in limit) next.maxConcurrency = limit.error;
    const rateLimit = parseMaxRequestsPerSecond(rate);
    if ('error' in rateLimit) next.maxRequestsPerSecond = rateLimit.error;
    return next;
  };
  // After a failed submit, messages follow the edits instead of going stale.
  const [submitted, setSubmitted] = useState(false);
  const onConfigChange = (next: unknown) => {
    setConfig(next);
    if (submitted) setErrors(validate(editor.toSend(schema, next), name));
  };
  const onNameChange = (next: string) => {
    setName(next);
    if (submitted) setErrors(validate(configToSend(), next));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    const configValue = configToSend();
    const next = validate(configValue, name);
    setErrors(next);
    if (Object.keys(next).length > 0) {
      requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    const limit = parseMaxConcurrency(concurrency);
    const maxConcurrency = 'value' in limit ? limit.value : null;
    const rateLimit = parseMaxRequestsPerSecond(rate);
    const maxRequestsPerSecond = 'value' in rateLimit ? rateLimit.value : null;
    const limits = { maxConcurrency, maxRequestsPerSecond };
    if (existing) update.mutate({ integrationId: existing.id, name: name.trim(), config: configValue, ...limits });
    else create.mutate({ workspaceId, name: name.trim(), type, accountId, config: configValue, ...limits });
  };

  if (workspaces.isPending) return <Loading />;
  if (workspaces.isError) return <ErrorState error={workspaces.error} onRetry={() => void workspaces.refetch()} />;
  if (!existing && workspaces.data.length === 0)
    return (
      <p className="callout">
        Integrations belong to a workspace: <Link to="/workspaces">create a workspace</Link> first.
      </p>
    );
  return (
    <form
      className="integration-form"
      noValidate
      onSubmit={submit}
      aria-label={existing ? 'Edit integration' : 'New integration'}
    >
      <section className="card" aria-labelledby="integration-basics">
        <h2 id="integration-basics">Integration</h2>
        {existing ? (
          <p className="muted">
            {info.label} in {workspaces.data.find((w) => w.id === existing.workspaceId)?.name ?? 'its workspace'}
          </p>
        ) : (
          <div className="form-grid">
            <SelectField
              label="Workspace"
              value={workspaceId}
              error={allErrors.workspaceId}
              onChange={(e) => setWorkspaceId(e.target.value)}
            >
              <option value="" disabled>
                Choose a workspace
              </option>
              {workspaces.data.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </SelectField>
            <TextField
              label="Search integrations"
              type="search"
              value={typeQuery}
              placeholder="Name or category, e.g. CRM"
              hint={
                shownTypes.length === 0
                  ? 'No integration matches'
                  : `${shownTypes.length} of ${TYPES.length} integrations`
              }
              onChange={(e) => {
                setTypeQuery(e.target.value);
                const matches = matchingTypes(e.target.value);
                if (matches.length > 0 && !matches.some((t) => t.type === type)) chooseType(matches[0]!.type);
              }}
            />
            <SelectField
              label="Type"
              value={type}
              error={allErrors.type}
              onChange={(e) => chooseType(e.target.value as IntegrationType)}
            >
              {INTEGRATION_CATEGORIES.map((category) => {
                const inCategory = (shownTypes.length ? shownTypes : TYPES).filter(
                  (t) => integrationCatalogue[t.type].category === category,
                );
                return inCategory.length ? (
                  <optgroup key={category} label={category}>
                    {inCategory.map((t) => (
                      <option key={t.type} value={t.type}>
                        {t.label}
                      </option>
                    ))}
                  </optgroup>
                ) : null;
              })}
            </SelectField>
          </div>
        )}
        <CatalogueSummary type={type} />
        <TextField
          label="Integration name"
          value={name}
          error={allErrors.name}
          onChange={(e) => onNameChange(e.target.value)}
        />
        <ConcurrencyField value={concurrency} type={type} error={allErrors.maxConcurrency} onChange={setConcurrency} />
        <RateField value={rate} type={type} error={allErrors.maxRequestsPerSecond} onChange={setRate} />
      </section>

      <section className="card" aria-labelledby="integration-account">
        <h2 id="integration-account">Account</h2>
        {existing ? (
          <SwapAccount integration={existing} onSwapped={(id) => setAccountId(id)} />
        ) : (
          <>
            <p className="muted small">
              {info.accountRequired ? 'The credentials it uses.' : 'Optional: secrets usable as {{key}} in the calls.'}{' '}
              Secrets are write-only and never shown again.
            </p>
            <AccountChooser
              key={type}
              integrationType={type}
              value={accountId}
              onChange={(id) => {
                setAccountId(id);
                setErrors(({ accountId: _cleared, ...rest }) => rest);
              }}
              error={allErrors.accountId}
              onDraft={setDraftAccount}
            />
          </>
        )}
      </section>

      <section className="card" aria-labelledby="integration-config">
        <h2 id="integration-config">{editor.title}</h2>
        {editor.render({ type, schema, accountId, value: config, onChange: onConfigChange, errors: allErrors })}
        {allErrors.config ? (
          <p className="field-error" role="alert">
            {allErrors.config}
          </p>
        ) : null}
      </section>

      {editor.preview?.({ accountId, config: configToSend, onIssues: setIssuesFromDryRun }) ?? null}
      <ConnectionTest
        type={type}
        accountId={accountId}
        draftAccount={draftAccount}
        config={configToSend}
        onIssues={setIssuesFromDryRun}
      />

      <FormError
        message={
          serverError && Object.keys(serverError.fieldErrors).length === 0
            ? serverError.message
            : serverError
              ? `${serverError.message}: see the highlighted fields`
              : null
        }
      />
      {Object.keys(errors).length > 0 ? (
        <p className="form-error" role="alert">
          Some fields need attention.
        </p>
      ) : null}
      <div className="form-actions">
        <Link className="button" to="/integrations">
          Cancel
        </Link>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : existing ? 'Save changes' : 'Connect integration'}
        </button>
      </div>
    </form>
  );
}
