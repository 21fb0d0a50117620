import { regulationPolicyInputSchema } from '@shared/deadlines';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { focusFirstInvalid, validateForm, type FieldErrors } from '../../lib/form';
import { useTRPC } from '../../trpc';
import { ConfirmDialog } from '../dialog';
import { SelectField, TextField } from '../field';
import { ErrorState, FormError, Loading } from '../states';

/** Which regulation's deadline applies: the organization's default, each workspace's choice, and custom policies. */
export function DeadlinesSection({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const regulations = useQuery(trpc.deadlines.regulations.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.deadlines.regulations.queryKey() });
  const setDefault = useMutation(trpc.deadlines.setDefault.mutationOptions({ onSuccess: refresh }));
  const setWorkspace = useMutation(trpc.deadlines.setWorkspaceRegulation.mutationOptions({ onSuccess: refresh }));
  const setTimeZone = useMutation(trpc.deadlines.setTimeZone.mutationOptions({ onSuccess: refresh }));
  const createPolicy = useMutation(trpc.deadlines.createPolicy.mutationOptions({ onSuccess: refresh }));
  const [deleting, setDeleting] = useState<{ id: string; name: string } | null>(null);
  const deletePolicy = useMutation(
    trpc.deadlines.deletePolicy.mutationOptions({ onSuccess: async () => (setDeleting(null), await refresh()) }),
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  if (regulations.isPending) return <Loading />;
  if (regulations.isError) return <ErrorState error={regulations.error} onRetry={() => void regulations.refetch()} />;
  const data = regulations.data;
  const names = ['GDPR', 'CCPA', ...data.policies.map((p) => p.name)];
  // One message for the section: the last change's. A deletion's shows in its dialog.
  const changes = [setDefault, setTimeZone, setWorkspace, createPolicy];
  // The zones this browser knows, and the organization's own even if it does not.
  const zones = [...new Set(['UTC', data.timeZone, ...Intl.supportedValuesOf('timeZone')])];
  const mutationError = changes.map((m) => m.error).find(Boolean);
  const serverError = mutationError ? toDisplayError(mutationError) : null;
  const clearErrors = () => changes.forEach((m) => m.reset());
  return (
    <section className="card" aria-labelledby="org-deadlines">
      <h2 id="org-deadlines">Legal deadlines</h2>
      <p className="muted">
        Each request is due by its regulation: GDPR one month (extendable by two), CCPA/CPRA 45 days (extendable by 45),
        or a policy of your own. A request can name its regulation; otherwise its workspace's applies. Days are counted
        on the calendar of the organization's time zone: a deadline ends at the end of its last day there, and a date of
        receipt given alone is that day there (requests already stored keep their deadlines).
      </p>
      <div className="filters-grid">
        <SelectField
          label="Organization default"
          value={data.defaultRegulation}
          disabled={!canEdit}
          onChange={(e) => {
            clearErrors();
            setDefault.mutate({ regulation: e.target.value });
          }}
        >
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Time zone"
          value={data.timeZone}
          disabled={!canEdit}
          onChange={(e) => {
            clearErrors();
            setTimeZone.mutate({ timeZone: e.target.value });
          }}
        >
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
        </SelectField>
        {data.workspaces.map((w) => (
          <SelectField
            key={w.id}
            label={`Workspace "${w.name}"`}
            value={w.regulation ?? ''}
            disabled={!canEdit}
            onChange={(e) => {
              clearErrors();
              setWorkspace.mutate({ workspaceId: w.id, regulation: e.target.value || null });
            }}
          >
            <option value="">Organization default ({data.defaultRegulation})</option>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </SelectField>
        ))}
      </div>
      <h3>Custom policies</h3>
      {data.policies.length === 0 ? <p className="muted">None yet.</p> : null}
      <ul className="list">
        {data.policies.map((p) => (
          <li key={p.id} className="list-row">
            <strong>{p.name}</strong>
            <span className="muted">
              {p.days} days{p.extensionDays ? `, extendable by ${p.extensionDays}` : ', no extension'}
            </span>
            {canEdit ? (
              <button
                type="button"
                className="link-button"
                aria-label={`Delete policy ${p.name}`}
                onClick={() => (deletePolicy.reset(), setDeleting(p))}
              >
                Delete
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {canEdit ? (
        <form
          className="inline-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const result = validateForm(regulationPolicyInputSchema, {
              name: String(form.get('name') ?? ''),
              days: Number(form.get('days')),
              extensionDays: Number(form.get('extensionDays') || 0),
            });
            if (!result.ok) {
              setErrors(result.errors);
              return focusFirstInvalid(event.currentTarget, result.errors);
            }
            setErrors({});
            clearErrors();
            createPolicy.mutate(result.data, { onSuccess: () => (event.target as HTMLFormElement).reset() });
          }}
        >
          <TextField label="Policy name" name="name" placeholder="LGPD" error={errors.name} />
          <TextField label="Days" name="days" type="number" min={1} error={errors.days} />
          <TextField
            label="Extension days"
            name="extensionDays"
            type="number"
            min={0}
            defaultValue="0"
            error={errors.extensionDays}
          />
          <button type="submit" className="button" disabled={createPolicy.isPending}>
            Add policy
          </button>
        </form>
      ) : null}
      <FormError message={serverError?.message ?? null} />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete policy ${deleting?.name ?? ''}?`}
        confirmLabel="Delete policy"
        destructive
        busy={deletePolicy.isPending}
        error={deletePolicy.error ? toDisplayError(deletePolicy.error).message : null}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && deletePolicy.mutate({ policyId: deleting.id })}
      >
        <p>New requests can no longer name it. Requests that already have a deadline keep it.</p>
      </ConfirmDialog>
    </section>
  );
}
