import { RETENTION_ACTIONS, retentionPolicySchema } from '@shared/schemas/organization';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { validateForm, type FieldErrors } from '../../lib/form';
import { useTRPC, type RouterOutputs } from '../../trpc';
import { SelectField, TextField } from '../field';
import { FormError } from '../states';

type Organization = RouterOutputs['organization']['get'];
type Action = (typeof RETENTION_ACTIONS)[number];

const ACTION_TEXT: Record<Action, string> = {
  NONE: 'Keep requests as they are',
  HASH: 'Hash identifiers (one-way; the raw value is gone)',
  DELETE: 'Delete requests from this service',
};

export function describeRetention(action: Action, days: number): string {
  if (action === 'NONE') return 'Requests are kept as they are.';
  const what = action === 'HASH' ? 'Identifiers are replaced by a one-way hash' : 'Requests are deleted from this service';
  return `${what} ${days === 0 ? 'as soon as they complete' : `${days} day${days === 1 ? '' : 's'} after they complete`}, daily at midnight UTC.`;
}

/** The retention policy; owners edit it and can apply it at once. */
export function RetentionSection({ organization, canEdit }: { organization: Organization; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [action, setAction] = useState<Action>(organization.retentionAction);
  const [days, setDays] = useState(String(organization.retentionDays));
  const [errors, setErrors] = useState<FieldErrors>({});
  const update = useMutation(trpc.organization.updateRetention.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.organization.get.queryKey() }) }));
  const apply = useMutation(trpc.organization.applyRetentionNow.mutationOptions());
  const serverError = update.error ? toDisplayError(update.error) : null;
  return (
    <section className="card" aria-labelledby="org-retention">
      <h2 id="org-retention">Retention and hashing</h2>
      <p>{describeRetention(organization.retentionAction, organization.retentionDays)}</p>
      {canEdit ? (
        <form
          className="inline-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const result = validateForm(retentionPolicySchema, { action, days: days === '' ? Number.NaN : Number(days) });
            if (!result.ok) return setErrors(result.errors);
            setErrors({});
            update.mutate(result.data);
          }}
        >
          <SelectField label="After completion" value={action} onChange={(e) => (update.reset(), setAction(e.target.value as Action))}>
            {RETENTION_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {ACTION_TEXT[a]}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Days after completion"
            type="number"
            inputMode="numeric"
            min={0}
            max={3650}
            value={days}
            disabled={action === 'NONE'}
            hint="0 means as soon as it completes."
            error={errors.days ?? serverError?.fieldErrors.days}
            onChange={(e) => (update.reset(), setDays(e.target.value))}
          />
          <button type="submit" className="button button-primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save policy'}
          </button>
          {update.isSuccess ? (
            <span role="status" className="muted">
              Saved
            </span>
          ) : null}
        </form>
      ) : (
        <p className="muted small">Only owners change the retention policy.</p>
      )}
      <FormError message={serverError && !serverError.fieldErrors.days ? serverError.message : null} />
      {canEdit && organization.retentionAction !== 'NONE' ? (
        <div className="row wrap ir-actions">
          <button type="button" className="button button-small" disabled={apply.isPending} onClick={() => apply.mutate()}>
            {apply.isPending ? 'Applying…' : 'Apply now'}
          </button>
          <span className="muted small">Instead of waiting for midnight UTC.</span>
          {apply.isSuccess ? (
            <span role="status" className="small">
              Applied: {apply.data.hashed} request{apply.data.hashed === 1 ? '' : 's'} hashed, {apply.data.deleted} deleted.
            </span>
          ) : null}
          <FormError message={apply.error ? toDisplayError(apply.error).message : null} />
        </div>
      ) : null}
    </section>
  );
}
