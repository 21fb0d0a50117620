/** Controlled fields the schema forms and the rule builder share: a text area and a checkbox, with label, hint and error. */
import { useId } from 'react';
import { FieldFrame } from '../field';

export function TextAreaField({
  label,
  value,
  onChange,
  error,
  hint,
  rows = 4,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  hint?: string;
  rows?: number;
}) {
  return (
    <FieldFrame
      label={label}
      error={error}
      hint={hint}
      control={(aria) => (
        <textarea {...aria} rows={rows} className="mono" value={value} onChange={(e) => onChange(e.target.value)} />
      )}
    />
  );
}

export function CheckboxField({
  label,
  checked,
  onChange,
  error,
  hint,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  error?: string;
  hint?: string;
}) {
  const id = useId();
  return (
    <div className="field field-checkbox">
      <label htmlFor={id} className="checkbox-label">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => onChange(e.target.checked)}
        />
        {label}
      </label>
      {hint ? <p className="hint">{hint}</p> : null}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
