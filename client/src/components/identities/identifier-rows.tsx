import { MAX_IDENTIFIERS_PER_REQUEST, type RequestIdentifierInput } from '@shared/identifiers';
import { useId } from 'react';

/**
 * The person's other identifiers on the create form: a type and a value per row. Each
 * integration receives the values of the type it consumes.
 */
export function IdentifierRows({
  types,
  rows,
  onChange,
  errors,
}: {
  types: { name: string; description: string }[];
  rows: RequestIdentifierInput[];
  onChange: (rows: RequestIdentifierInput[]) => void;
  errors: Record<string, string | undefined>;
}) {
  const id = useId();
  const set = (at: number, change: Partial<RequestIdentifierInput>) =>
    onChange(rows.map((row, i) => (i === at ? { ...row, ...change } : row)));
  return (
    <fieldset className="field identifier-rows">
      <legend>Other identifiers of this person</legend>
      <p className="hint" id={`${id}-hint`}>
        A person is known by a different identifier in each system (a user id in your database, a customer id in
        Stripe). Each integration receives the values of the identifier type it consumes; the workspace&apos;s identity
        lookups may find more.
      </p>
      {rows.map((row, at) => {
        const error =
          errors[`identifiers.${at}.value`] ?? errors[`identifiers.${at}.type`] ?? errors[`identifiers.${at}`];
        return (
          <div className="identifier-row" key={at}>
            <label className="visually-hidden" htmlFor={`${id}-type-${at}`}>
              Other type {at + 1}
            </label>
            <select id={`${id}-type-${at}`} value={row.type} onChange={(e) => set(at, { type: e.target.value })}>
              {types.map((type) => (
                <option key={type.name} value={type.name}>
                  {type.name}
                </option>
              ))}
            </select>
            <label className="visually-hidden" htmlFor={`${id}-value-${at}`}>
              Other value {at + 1}
            </label>
            <input
              id={`${id}-value-${at}`}
              autoComplete="off"
              value={row.value}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error-${at}` : undefined}
              onChange={(e) => set(at, { value: e.target.value })}
            />
            <button
              type="button"
              className="link-button small"
              onClick={() => onChange(rows.filter((_, i) => i !== at))}
              aria-label={`Remove other value ${at + 1}`}
            >
              Remove
            </button>
            {error ? (
              <p className="field-error" id={`${id}-error-${at}`}>
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
      {rows.length < MAX_IDENTIFIERS_PER_REQUEST - 1 ? (
        <button
          type="button"
          className="button"
          onClick={() =>
            onChange([...rows, { type: types.find((t) => t.name !== 'email')?.name ?? 'user_id', value: '' }])
          }
        >
          Add identifier
        </button>
      ) : null}
    </fieldset>
  );
}
