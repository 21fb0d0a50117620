import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { TextField } from '../field';
import { FormError } from '../states';
import { toDisplayError } from '../../lib/errors';
import { useTRPC } from '../../trpc';

/**
 * The organization's identifier types: email, phone and user_id are built in; admins add the
 * types their systems know a person by (stripe_customer_id, anonymous_id, device_id…).
 */
export function IdentifierTypesSection({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const types = useQuery(trpc.identities.listTypes.queryOptions());
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.identities.listTypes.queryKey() });
  const create = useMutation(
    trpc.identities.createType.mutationOptions({
      onSuccess: async () => {
        setName('');
        setDescription('');
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.identities.deleteType.mutationOptions({ onSuccess: refresh }));
  const createError = create.error ? toDisplayError(create.error) : null;
  return (
    <section className="card" aria-labelledby="org-identifier-types">
      <h2 id="org-identifier-types">Identifier types</h2>
      <p>
        A person is known by a different identifier in each system. A request carries typed identifiers, and each
        integration receives the values of the type it consumes.
      </p>
      <ul className="plain-list">
        {(types.data ?? []).map((type) => (
          <li key={type.name}>
            <span className="mono">{type.name}</span>
            {type.description ? <span className="muted"> — {type.description}</span> : null}
            {type.builtIn ? (
              <span className="muted small"> (built in)</span>
            ) : canEdit ? (
              <>
                {' '}
                <button
                  type="button"
                  className="link-button small"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate({ name: type.name })}
                  aria-label={`Remove the identifier type ${type.name}`}
                >
                  Remove
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      <FormError message={remove.error ? toDisplayError(remove.error).message : null} />
      {canEdit ? (
        <form
          className="inline-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate({ name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) });
          }}
        >
          <TextField
            label="New type"
            name="identifierTypeName"
            value={name}
            placeholder="stripe_customer_id"
            hint="Lowercase letters, digits and underscores."
            error={createError?.fieldErrors.name}
            onChange={(e) => (create.reset(), setName(e.target.value))}
          />
          <TextField
            label="Description"
            name="identifierTypeDescription"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
          <button type="submit" className="button button-primary" disabled={create.isPending || name.trim() === ''}>
            {create.isPending ? 'Adding…' : 'Add type'}
          </button>
        </form>
      ) : null}
      <FormError message={createError && !createError.fieldErrors.name ? createError.message : null} />
    </section>
  );
}
