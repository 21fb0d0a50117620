/** Field nodes for values edited as a whole: key/value records, comma-separated lists, raw JSON. */
import { useState } from 'react';
import { TextField } from '../field';
import { errorsBelow, parseList, pathKey } from '../../lib/schema-form';
import { recordKeyField } from '../../lib/form';
import { TextAreaField } from './input-fields';
import type { Extra, NodeProps } from './node-props';

export function RecordNode(props: NodeProps & Extra) {
  const [rows, setRows] = useState<[string, string][]>(() =>
    Object.entries((props.value ?? {}) as Record<string, string>),
  );
  const valueSchema = typeof props.schema.additionalProperties === 'object' ? props.schema.additionalProperties : {};
  const secret = props.options.isSecret?.([...props.path, '*']) ?? false;
  const singular = props.label.replace(/ \(optional\)$/, '').replace(/s$/, '');
  const update = (next: [string, string][]) => {
    setRows(next);
    props.onChange(Object.fromEntries(next.filter(([k]) => k.trim() !== '').map(([k, v]) => [k.trim(), v])));
  };
  return (
    <fieldset className="schema-fieldset">
      <legend>{props.label}</legend>
      {props.hint ? <p className="hint">{props.hint}</p> : null}
      {rows.length === 0 ? <p className="muted small">None.</p> : null}
      {rows.map(([k, v], index) => (
        <div className="record-row" key={index}>
          <TextField
            label={`${singular} name ${index + 1}`}
            value={k}
            error={props.errors[pathKey([...props.path, recordKeyField(k.trim())])]}
            onChange={(e) => update(rows.map((r, i) => (i === index ? [e.target.value, r[1]] : r)))}
          />
          <TextField
            label={`${singular} value ${index + 1}`}
            type={secret ? 'password' : 'text'}
            autoComplete={secret ? 'new-password' : 'off'}
            maxLength={valueSchema.maxLength}
            value={v}
            error={props.errors[pathKey([...props.path, k.trim()])]}
            onChange={(e) => update(rows.map((r, i) => (i === index ? [r[0], e.target.value] : r)))}
          />
          <button
            type="button"
            className="button button-small"
            aria-label={`Remove ${k || `row ${index + 1}`}`}
            onClick={() => update(rows.filter((_, i) => i !== index))}
          >
            Remove
          </button>
        </div>
      ))}
      {props.error ? (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
      <button type="button" className="button button-small" onClick={() => update([...rows, ['', '']])}>
        Add {singular.toLowerCase()}
      </button>
    </fieldset>
  );
}

export function StringListNode(props: NodeProps & Extra) {
  const [text, setText] = useState(() => (Array.isArray(props.value) ? props.value.join(', ') : ''));
  const itemErrors = errorsBelow(props.errors, props.path);
  return (
    <TextField
      label={props.label}
      value={text}
      hint={props.hint ?? 'Separate values with commas'}
      error={props.error ?? itemErrors[0]}
      onChange={(e) => {
        setText(e.target.value);
        props.onChange(parseList(e.target.value));
      }}
    />
  );
}

export function JsonNode(props: NodeProps & Extra) {
  const [text, setText] = useState(() => (props.value === undefined ? '' : JSON.stringify(props.value, null, 2)));
  const [parseError, setParseError] = useState<string | null>(null);
  return (
    <TextAreaField
      label={`${props.label} (JSON)`}
      value={text}
      error={parseError ?? props.error}
      hint={props.hint}
      onChange={(next) => {
        setText(next);
        if (next.trim() === '') return (setParseError(null), props.onChange(undefined));
        try {
          props.onChange(JSON.parse(next));
          setParseError(null);
        } catch {
          setParseError('Not valid JSON');
        }
      }}
    />
  );
}
