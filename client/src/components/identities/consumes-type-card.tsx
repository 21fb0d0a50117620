import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SelectField } from '../field';
import { FormError } from '../states';
import { toDisplayError } from '../../lib/errors';
import { useTRPC } from '../../trpc';

/** The vendor's own identifier setting (`identifierType: 'email'`), which suggests the organization type of that name. */
function suggestedType(config: unknown, types: string[]): string | null {
  const native = (config as { identifierType?: unknown } | null)?.identifierType;
  return typeof native === 'string' && types.includes(native) ? native : null;
}

/**
 * Which of the person's identifiers this integration receives: every value of one type, or
 * (as before typed identifiers) the request's primary identifier whatever its type.
 */
export function ConsumesTypeCard({
  integrationId,
  consumesType,
  config,
}: {
  integrationId: string;
  consumesType: string | null;
  config: unknown;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const types = useQuery(trpc.identities.listTypes.queryOptions());
  const [value, setValue] = useState(consumesType ?? '');
  const save = useMutation(
    trpc.identities.setIntegrationType.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.integrations.get.queryKey({ integrationId }) }),
    }),
  );
  const names = (types.data ?? []).map((type) => type.name);
  const suggested = suggestedType(config, names);
  return (
    <section className="card form narrow-form" aria-labelledby="consumes-heading">
      <h2 id="consumes-heading">Identifiers it receives</h2>
      <form
        className="inline-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate({ integrationId, consumesType: value === '' ? null : value });
        }}
      >
        <SelectField
          label="Receives identifiers of type"
          name="consumesType"
          value={value}
          onChange={(e) => (save.reset(), setValue(e.target.value))}
          hint="A request with no identifier of this type ends here as “No identifier of type …”, never as “nothing found”."
        >
          <option value="">The request&apos;s primary identifier, whatever its type</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
              {name === suggested ? ' (suggested: the vendor setting of that name)' : ''}
            </option>
          ))}
        </SelectField>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        {save.isSuccess ? (
          <span role="status" className="muted">
            Saved
          </span>
        ) : null}
      </form>
      <FormError message={save.error ? toDisplayError(save.error).message : null} />
    </section>
  );
}
