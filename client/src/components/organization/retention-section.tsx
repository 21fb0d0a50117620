import { RETENTION_ACTIONS, retentionPolicySchema } from '@shared/schemas/organization';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { focusFirstInvalid, validateForm, type FieldErrors } from '../../lib/form';
import { useTRPC, type RouterOutputs } from '../../trpc';
import { ConfirmDialog } from '../dialog';
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
  const what =
    action === 'HASH' ? 'Identifiers are replaced by a one-way hash' : 'Requests are deleted from this service';
  return `${what} ${days === 0 ? 'as soon as they complete' : `${days} day${days === 1 ? '' : 's'} after they complete`}, daily at midnight UTC.`;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "Hash the identifiers of 303 finished requests?" */
export function retentionConfirmTitle(action: Action, due: number | undefined): string {
  if (due === undefined) return 'Apply the retention policy now?';
  const requests = plural(due, 'finished request', 'finished requests');
  return action === 'DELETE'
    ? `Delete the identifiers and payloads of ${requests}?`
    : `Hash the identifiers of ${requests}?`;
}

export function retentionConfirmLabel(action: Action, due: number): string {
  return action === 'DELETE'
    ? `Delete ${plural(due, 'identifier', 'identifiers')}`
    : `Hash ${plural(due, 'identifier', 'identifiers')}`;
}

/** The retention policy; owners edit it and can apply it at once. */
export function RetentionSection({ organization, canEdit }: { organization: Organization; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [action, setAction] = useState<Action>(organization.retentionAction);
  const [days, setDays] = useState(String(organization.retentionDays));
  const [errors, setErrors] = useState<FieldErrors>({});
  const update = useMutation(
    trpc.organization.updateRetention.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.organization.get.queryKey() }),
    }),
  );
  const [confirmApply, setConfirmApply] = useState(false);
  // Counted when the confirmation opens, so it says exactly what will happen now.
  const preview = useQuery(
    trpc.organization.retentionPreview.queryOptions(undefined, { enabled: confirmApply, staleTime: 0, gcTime: 0 }),
  );
  const apply = useMutation(
    trpc.organization.applyRetentionNow.mutationOptions({
      onSuccess: async () => {
        setConfirmApply(false);
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.pathKey() });
      },
    }),
  );
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
            const form = event.currentTarget;
            const result = validateForm(retentionPolicySchema, {
              action,
              days: days.trim() === '' ? Number.NaN : Number(days),
            });
            if (!result.ok) {
              const found = {
                ...result.errors,
                ...(result.errors.days && !/^\d+$/.test(days.trim()) ? { days: 'Enter a number of days' } : {}),
              };
              setErrors(found);
              focusFirstInvalid(form, found);
              return;
            }
            setErrors({});
            update.mutate(result.data);
          }}
        >
          <SelectField
            label="After completion"
            value={action}
            onChange={(e) => (update.reset(), setAction(e.target.value as Action))}
          >
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
            name="days"
            value={days}
            disabled={action === 'NONE'}
            hint="0 means as soon as it completes."
            error={errors.days ?? serverError?.fieldErrors.days}
            onChange={(e) => {
              update.reset();
              setDays(e.target.value);
              // The error goes once the field holds a whole number again.
              if (errors.days && /^\d+$/.test(e.target.value.trim())) setErrors(({ days: _fixed, ...rest }) => rest);
            }}
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
          <button
            type="button"
            className="button button-small"
            disabled={apply.isPending}
            onClick={() => (apply.reset(), setConfirmApply(true))}
          >
            Apply now
          </button>
          <span className="muted small">Instead of waiting for midnight UTC.</span>
          {apply.isSuccess ? (
            <span role="status" className="small">
              Applied: {apply.data.hashed} request{apply.data.hashed === 1 ? '' : 's'} hashed, {apply.data.deleted}{' '}
              deleted.
            </span>
          ) : null}
        </div>
      ) : null}
      <ConfirmDialog
        open={confirmApply}
        title={retentionConfirmTitle(organization.retentionAction, preview.data?.due)}
        confirmLabel={
          preview.data ? retentionConfirmLabel(organization.retentionAction, preview.data.due) : 'Counting…'
        }
        cancelLabel="Not now"
        destructive
        busy={apply.isPending}
        confirmDisabled={!preview.data || preview.data.due === 0}
        error={
          apply.error
            ? toDisplayError(apply.error).message
            : preview.error
              ? toDisplayError(preview.error).message
              : null
        }
        onCancel={() => setConfirmApply(false)}
        onConfirm={() => apply.mutate()}
      >
        <p>
          {preview.isPending
            ? 'Counting the finished requests the policy applies to…'
            : preview.data?.due === 0
              ? 'No finished request is due under the policy right now: there is nothing to apply.'
              : organization.retentionAction === 'HASH'
                ? 'Each identifier is replaced by a one-way keyed hash and the audit payloads that carried it are removed. Exact search still finds them; the original values cannot be recovered.'
                : 'Each identifier and the audit payloads that carried it are deleted; only ids, statuses, timestamps and integration names stay. This cannot be undone.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}
