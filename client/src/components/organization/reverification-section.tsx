import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { TextField } from '../field';
import { FormError } from '../states';
import { toDisplayError } from '../../lib/errors';
import { useTRPC, type RouterOutputs } from '../../trpc';

type Organization = RouterOutputs['organization']['get'];

/**
 * Re-verification: N days after a store deletion succeeded, its verification runs again and
 * data that came back (a restored backup, an ETL job) is reported. Empty = off.
 */
export function ReverificationSection({ organization, canEdit }: { organization: Organization; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [days, setDays] = useState(
    organization.reverifyAfterDays === null ? '' : String(organization.reverifyAfterDays),
  );
  const [error, setError] = useState<string | null>(null);
  const update = useMutation(
    trpc.organization.updateReverification.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.organization.get.queryKey() }),
    }),
  );
  const serverError = update.error ? toDisplayError(update.error) : null;
  const current = organization.reverifyAfterDays;
  // Retention that removes the identifier first leaves nothing to look for.
  const retentionFirst =
    current !== null && organization.retentionAction !== 'NONE' && organization.retentionDays <= current;
  return (
    <section className="card" aria-labelledby="org-reverification">
      <h2 id="org-reverification">Re-verification</h2>
      <p>
        {current === null
          ? 'Off: deletions in your databases and data stores are verified once, right after they run.'
          : `Deletions in your databases and data stores are verified again ${current} day(s) after they succeeded; data that came back raises a notification.`}
      </p>
      {retentionFirst ? (
        <p className="form-error">
          The retention policy removes identifiers after {organization.retentionDays} day(s), before re-verification can
          run: shorten this delay.
        </p>
      ) : null}
      {canEdit ? (
        <form
          className="inline-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const text = days.trim();
            if (text !== '' && !/^\d+$/.test(text))
              return setError('Enter a number of days, or leave it empty to turn it off');
            const value = text === '' ? null : Number(text);
            if (value !== null && (value < 1 || value > 3650)) return setError('Between 1 and 3650 days');
            setError(null);
            update.mutate({ reverifyAfterDays: value });
          }}
        >
          <TextField
            label="Verify again after (days)"
            type="number"
            inputMode="numeric"
            min={1}
            max={3650}
            name="reverifyAfterDays"
            value={days}
            hint="Empty: off."
            error={error ?? serverError?.fieldErrors.reverifyAfterDays}
            onChange={(e) => (update.reset(), setDays(e.target.value))}
          />
          <button type="submit" className="button button-primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save'}
          </button>
          {update.isSuccess ? (
            <span role="status" className="muted">
              Saved
            </span>
          ) : null}
        </form>
      ) : (
        <p className="muted small">Only owners change re-verification.</p>
      )}
      <FormError message={serverError && !serverError.fieldErrors.reverifyAfterDays ? serverError.message : null} />
    </section>
  );
}
