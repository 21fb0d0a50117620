import { useId } from 'react';
import { SelectField, TextField } from '../field';
import {
  defaultsFor,
  errorsBelow,
  fieldKind,
  labelFor,
  nodeOf,
  pathKey,
  unionOf,
  variantOf,
  type JsonSchema,
  type Path,
} from '../../lib/schema-form';
import { CheckboxField, TextAreaField } from './input-fields';
import { shapeKey, type Extra, type NodeProps, type SchemaFormOptions } from './node-props';
import { JsonNode, RecordNode, StringListNode } from './value-nodes';

export type { SchemaFormOptions } from './node-props';

/**
 * Fields for a JSON Schema (from a zod schema): strings, numbers, booleans, enums, nested
 * objects (optional ones behind a checkbox), discriminated unions (a choice of kind, then that
 * kind's fields), records (key/value rows), lists of strings and lists of objects; anything
 * else as JSON. Errors are looked up by dotted path.
 */
export function SchemaFields(props: {
  schema: JsonSchema;
  value: unknown;
  onChange: (value: unknown) => void;
  errors: Record<string, string>;
  path?: Path;
  options?: SchemaFormOptions;
}) {
  const path = props.path ?? [];
  return (
    <SchemaNode
      schema={props.schema}
      value={props.value}
      onChange={props.onChange}
      path={path}
      errors={props.errors}
      required
      options={props.options ?? {}}
      rootLength={path.length}
    />
  );
}

function SchemaNode(props: NodeProps) {
  const node = nodeOf(props.schema);
  const key = props.path.at(-1);
  const shape = shapeKey(props.path, props.rootLength);
  const label = props.options.labels?.[shape] ?? (key === undefined ? '' : labelFor(key));
  const labelText = props.required || node.default !== undefined ? label : `${label} (optional)`;
  const error = props.errors[pathKey(props.path)];
  const hint = props.options.hints?.[shape];
  const suggested = props.options.suggestions?.[shape] ?? [];
  const listId = useId();
  switch (fieldKind(node)) {
    case 'enum':
      return (
        <SelectField
          label={labelText}
          value={props.value === undefined ? '' : String(props.value)}
          error={error}
          hint={hint}
          onChange={(e) => props.onChange(e.target.value === '' ? undefined : e.target.value)}
        >
          {props.required || node.default !== undefined ? null : <option value="">—</option>}
          {node.enum!.map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </SelectField>
      );
    case 'string':
      return (
        <>
          <TextField
            label={labelText}
            type={props.options.isSecret?.(props.path) ? 'password' : 'text'}
            autoComplete={props.options.isSecret?.(props.path) ? 'new-password' : 'off'}
            list={suggested.length > 0 ? listId : undefined}
            value={typeof props.value === 'string' ? props.value : ''}
            error={error}
            hint={hint}
            onChange={(e) => props.onChange(e.target.value)}
          />
          {suggested.length > 0 ? (
            <datalist id={listId}>
              {suggested.map((value) => (
                <option key={value} value={value} />
              ))}
            </datalist>
          ) : null}
        </>
      );
    case 'text':
      // A long secret (an API key, a token) is still a secret: typed into a password field, never shown.
      return props.options.isSecret?.(props.path) ? (
        <TextField
          label={labelText}
          type="password"
          autoComplete="new-password"
          value={typeof props.value === 'string' ? props.value : ''}
          error={error}
          hint={hint}
          onChange={(e) => props.onChange(e.target.value)}
        />
      ) : (
        <TextAreaField
          label={labelText}
          value={typeof props.value === 'string' ? props.value : ''}
          error={error}
          hint={hint}
          onChange={props.onChange}
        />
      );
    case 'number':
      return (
        <TextField
          label={labelText}
          type="number"
          inputMode="numeric"
          min={node.minimum}
          max={node.maximum}
          value={typeof props.value === 'number' && !Number.isNaN(props.value) ? String(props.value) : ''}
          placeholder={node.default !== undefined ? String(node.default) : undefined}
          error={error}
          hint={hint}
          onChange={(e) => props.onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      );
    case 'boolean':
      return (
        <CheckboxField
          label={label}
          checked={props.value === true}
          onChange={props.onChange}
          error={error}
          hint={hint}
        />
      );
    case 'object':
      return <ObjectNode {...props} schema={node} label={label} error={error} hint={hint} />;
    case 'union':
      return <UnionNode {...props} schema={node} label={label} error={error} hint={hint} />;
    case 'record':
      return <RecordNode {...props} schema={node} label={labelText} error={error} hint={hint} />;
    case 'string-list':
      return <StringListNode {...props} label={labelText} error={error} hint={hint} />;
    case 'object-list':
      return <ObjectListNode {...props} schema={node} label={labelText} error={error} hint={hint} />;
    default:
      return <JsonNode {...props} label={labelText} error={error} hint={hint} />;
  }
}

function ObjectNode(props: NodeProps & Extra & { inline?: boolean }) {
  // The root, and the fields of a union's chosen kind, are shown without a frame of their own.
  const isRoot = props.path.length === props.rootLength || props.inline === true;
  const present = props.value !== undefined && props.value !== null;
  const object = (present ? props.value : {}) as Record<string, unknown>;
  const fields = Object.entries(props.schema.properties ?? {}).map(([key, child]) => (
    <SchemaNode
      key={key}
      schema={child}
      value={object[key]}
      onChange={(next) => {
        const copy = { ...object };
        if (next === undefined) delete copy[key];
        else copy[key] = next;
        props.onChange(copy);
      }}
      path={[...props.path, key]}
      errors={props.errors}
      required={props.schema.required?.includes(key) ?? false}
      options={props.options}
      rootLength={props.rootLength}
    />
  ));
  if (isRoot)
    return (
      <div className="schema-object">
        {fields}
        {props.error ? <p className="field-error">{props.error}</p> : null}
      </div>
    );
  const hidden = !props.required && !present;
  const inner = errorsBelow(props.errors, props.path);
  return (
    <fieldset className="schema-fieldset">
      <legend>{props.label}</legend>
      {props.required ? null : (
        <CheckboxField
          label={`Use ${props.label.toLowerCase()}`}
          checked={present}
          onChange={(on) => props.onChange(on ? defaultsFor(props.schema) : undefined)}
        />
      )}
      {props.hint ? <p className="hint">{props.hint}</p> : null}
      {props.error ? (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
      {hidden ? inner.length > 0 && !props.error ? <p className="field-error">{inner[0]}</p> : null : fields}
    </fieldset>
  );
}

/**
 * One of several kinds of object (a Redis rule: keys, a hash field or a set member): the kind
 * is chosen first, then that kind's own fields. Changing the kind starts its fields afresh.
 */
function UnionNode(props: NodeProps & Extra) {
  const union = unionOf(props.schema)!;
  const variant = variantOf(union, props.value);
  const object = (props.value && typeof props.value === 'object' ? props.value : {}) as Record<string, unknown>;
  const shape = shapeKey([...props.path, union.key], props.rootLength);
  const kindLabel = props.options.labels?.[shape] ?? labelFor(union.key);
  const fields = Object.fromEntries(Object.entries(variant.schema.properties!).filter(([k]) => k !== union.key));
  const rest: JsonSchema = {
    ...variant.schema,
    properties: fields,
    required: variant.schema.required?.filter((k) => k !== union.key),
  };
  return (
    <div className="schema-union">
      <SelectField
        label={kindLabel}
        value={variant.value}
        error={props.errors[pathKey([...props.path, union.key])]}
        hint={props.options.hints?.[shape]}
        onChange={(e) => props.onChange(defaultsFor(union.variants.find((v) => v.value === e.target.value)!.schema))}
      >
        {union.variants.map((v) => (
          <option key={v.value} value={v.value}>
            {labelFor(v.value)}
          </option>
        ))}
      </SelectField>
      <ObjectNode
        {...props}
        schema={rest}
        value={object}
        onChange={(next) => props.onChange({ [union.key]: variant.value, ...(next as Record<string, unknown>) })}
        inline
      />
      {props.error ? (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

function ObjectListNode(props: NodeProps & Extra) {
  const list = Array.isArray(props.value) ? props.value : [];
  const items = props.schema.items!;
  const singular = props.label.replace(/ \(optional\)$/, '').replace(/s$/, '');
  const move = (from: number, to: number) => {
    const next = [...list];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item);
    props.onChange(next);
  };
  return (
    <fieldset className="schema-fieldset">
      <legend>{props.label}</legend>
      {props.hint ? <p className="hint">{props.hint}</p> : null}
      {props.error ? (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
      {list.map((item, index) => (
        <div className="schema-list-item" key={index}>
          <div className="row space-between wrap">
            <strong>
              {singular} {index + 1}
            </strong>
            <div className="row">
              <button
                type="button"
                className="button button-small"
                disabled={index === 0}
                onClick={() => move(index, index - 1)}
                aria-label={`Move ${singular.toLowerCase()} ${index + 1} up`}
              >
                ↑
              </button>
              <button
                type="button"
                className="button button-small"
                disabled={index === list.length - 1}
                onClick={() => move(index, index + 1)}
                aria-label={`Move ${singular.toLowerCase()} ${index + 1} down`}
              >
                ↓
              </button>
              <button
                type="button"
                className="button button-small button-danger-outline"
                onClick={() => props.onChange(list.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </div>
          </div>
          <SchemaNode
            {...props}
            schema={items}
            value={item}
            path={[...props.path, index]}
            required
            rootLength={props.rootLength}
            onChange={(next) => props.onChange(list.map((old, i) => (i === index ? next : old)))}
          />
        </div>
      ))}
      <button
        type="button"
        className="button button-small"
        onClick={() => props.onChange([...list, defaultsFor(items)])}
      >
        Add {singular.toLowerCase()}
      </button>
    </fieldset>
  );
}
