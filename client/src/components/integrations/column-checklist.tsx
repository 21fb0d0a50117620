import { useId } from 'react';
import type { DiscoveredColumn } from '../../lib/postgres-rules';

/** Checkboxes for columns of a table, with their types; a rule's identifier columns or the columns it changes. */
export function ColumnChecklist(props: {
  legend: string;
  hint: string;
  columns: DiscoveredColumn[];
  selected: string[];
  error?: string;
  onChange: (selected: string[]) => void;
}) {
  const id = useId();
  return (
    <fieldset className="column-checklist" aria-describedby={props.error ? `${id}-error` : `${id}-hint`}>
      <legend>{props.legend}</legend>
      <p className="hint" id={`${id}-hint`}>
        {props.hint}
      </p>
      {props.columns.length === 0 ? <p className="muted small">No column of this table fits.</p> : null}
      <div className="chips">
        {props.columns.map((c) => (
          <label key={c.name} className="chip">
            <input
              type="checkbox"
              checked={props.selected.includes(c.name)}
              onChange={(e) =>
                props.onChange(
                  e.target.checked ? [...props.selected, c.name] : props.selected.filter((s) => s !== c.name),
                )
              }
            />
            {c.name}{' '}
            <span className="muted small">
              {c.dataType}
              {c.nullable ? '' : ', not null'}
            </span>
          </label>
        ))}
      </div>
      {props.error ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </fieldset>
  );
}
