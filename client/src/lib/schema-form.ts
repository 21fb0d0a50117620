import { z } from 'zod';

/** The subset of JSON Schema (draft 2020-12, as zod 4 writes it) that forms are rendered from. */
export interface JsonSchema {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  title?: string;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export type Path = (string | number)[];
export type FieldKind =
  | 'enum'
  | 'string'
  | 'text'
  | 'number'
  | 'boolean'
  | 'object'
  | 'union'
  | 'record'
  | 'string-list'
  | 'object-list'
  | 'json';

/** What a form edits: the schema's input side (before defaults and transforms apply). */
export function formSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** A nullable optional (`anyOf: [X, null]`) is edited as X. */
function unwrap(node: JsonSchema): JsonSchema {
  const variants = node.anyOf ?? node.oneOf;
  if (variants) {
    const concrete = variants.filter((v) => v.type !== 'null');
    if (concrete.length === 1) return { ...concrete[0], default: node.default ?? concrete[0]!.default };
  }
  return node;
}

/**
 * A discriminated union (zod's `z.discriminatedUnion`, written as `oneOf` of objects that share
 * a property holding a `const`): the discriminating key and each variant by its value.
 */
export function unionOf(raw: JsonSchema): { key: string; variants: { value: string; schema: JsonSchema }[] } | null {
  const node = unwrap(raw);
  const variants = (node.oneOf ?? node.anyOf)?.filter((v) => v.type !== 'null');
  if (!variants || variants.length < 2 || !variants.every((v) => v.type === 'object' && v.properties)) return null;
  const key = Object.keys(variants[0]!.properties!).find((k) =>
    variants.every((v) => typeof v.properties![k]?.const === 'string'),
  );
  if (!key) return null;
  return { key, variants: variants.map((schema) => ({ value: schema.properties![key]!.const as string, schema })) };
}

/** The variant of a union a value is (by its discriminating key), or the first. */
export function variantOf(union: NonNullable<ReturnType<typeof unionOf>>, value: unknown) {
  const chosen = value && typeof value === 'object' ? (value as Record<string, unknown>)[union.key] : undefined;
  return union.variants.find((v) => v.value === chosen) ?? union.variants[0]!;
}

const SCALAR_TYPES = new Set(['string', 'number', 'integer']);

/** Which widget a schema node gets. Anything this renderer does not know is edited as JSON. */
export function fieldKind(raw: JsonSchema): FieldKind {
  const node = unwrap(raw);
  if (node.enum) return 'enum';
  if (unionOf(node)) return 'union';
  // A value given as text or a number (an id such as GA4's property id) is typed as text.
  // (JSON Schema writes it as a list of types, which the JsonSchema type here does not declare.)
  const types: unknown = node.type;
  if (Array.isArray(types) && types.includes('string') && types.every((t) => SCALAR_TYPES.has(String(t))))
    return 'string';
  switch (node.type) {
    case 'string':
      return (node.maxLength ?? 0) > 2000 ? 'text' : 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      if (node.properties) return 'object';
      if (
        node.additionalProperties &&
        typeof node.additionalProperties === 'object' &&
        nodeOf(node.additionalProperties).type === 'string'
      )
        return 'record';
      return 'json';
    case 'array': {
      const items = node.items ? unwrap(node.items) : undefined;
      if (items?.type === 'string' && !items.enum) return 'string-list';
      if ((items?.type === 'object' && items.properties) || (items && unionOf(items))) return 'object-list';
      return 'json';
    }
    default:
      return 'json';
  }
}

export function nodeOf(raw: JsonSchema): JsonSchema {
  return unwrap(raw);
}

const LABEL_WORDS: Record<string, string> = {
  url: 'URL',
  id: 'id',
  ms: '(ms)',
  utc: '(UTC)',
  json: 'JSON',
  ssl: 'SSL',
  tls: 'TLS',
  api: 'API',
};

/** "trackingIdPath" → "Tracking id path", "baseUrl" → "Base URL", "timeoutMs" → "Timeout (ms)". */
export function labelFor(key: string | number): string {
  if (typeof key === 'number') return `#${key + 1}`;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .split(' ')
    .filter(Boolean)
    .map((w) => LABEL_WORDS[w] ?? w);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Starting values: declared defaults, and required objects filled in. Optional fields start empty. */
export function defaultsFor(raw: JsonSchema): unknown {
  const node = unwrap(raw);
  if (node.default !== undefined) return structuredClone(node.default);
  if (node.const !== undefined) return node.const;
  switch (fieldKind(node)) {
    case 'union':
      return defaultsFor(unionOf(node)!.variants[0]!.schema);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        const required = node.required?.includes(key) ?? false;
        const kind = fieldKind(child);
        const value = required || unwrap(child).default !== undefined ? defaultsFor(child) : undefined;
        if (value !== undefined) out[key] = value;
        else if (required && (kind === 'string' || kind === 'text')) out[key] = '';
      }
      return out;
    }
    case 'record':
      return {};
    case 'string-list':
    case 'object-list':
      return [];
    case 'enum':
      return node.enum?.[0];
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

export function getAt(value: unknown, path: Path): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** A copy of `value` with `next` at `path` (undefined removes an object key). */
export function setAt(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [key, ...rest] = path as [string | number, ...Path];
  if (typeof key === 'number') {
    const list = Array.isArray(value) ? [...value] : [];
    list[key] = setAt(list[key], rest, next);
    return list;
  }
  const object =
    value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
  const child = setAt(object[key], rest, next);
  if (child === undefined) delete object[key];
  else object[key] = child;
  return object;
}

/**
 * What is sent: empty optional strings and numbers left blank are dropped (so "not set" is
 * not sent as ""), required ones are kept for the schema to name.
 */
export function pruneEmpty(raw: JsonSchema, value: unknown): unknown {
  const node = unwrap(raw);
  const kind = fieldKind(node);
  if (kind === 'object' && value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const childSchema = node.properties?.[key];
      const pruned = childSchema ? pruneEmpty(childSchema, child) : child;
      const required = node.required?.includes(key) ?? false;
      if (pruned === undefined || (!required && pruned === '')) continue;
      out[key] = pruned;
    }
    return out;
  }
  if (kind === 'union') return pruneEmpty(variantOf(unionOf(node)!, value).schema, value);
  if (kind === 'object-list' && Array.isArray(value)) return value.map((item) => pruneEmpty(node.items!, item));
  if (kind === 'string-list' && Array.isArray(value)) return value.map((s) => String(s).trim()).filter(Boolean);
  if (kind === 'number' && (value === '' || (typeof value === 'number' && Number.isNaN(value)))) return undefined;
  return value;
}

/** Dotted error key of a path, as `issuesToFieldErrors` writes them. */
export const pathKey = (path: Path) => path.map(String).join('.');

/** The first error at or below `path`, for a collapsed section that must still say "something is wrong inside". */
export function errorsBelow(errors: Record<string, string>, path: Path): string[] {
  const prefix = pathKey(path);
  return Object.entries(errors)
    .filter(([key]) => key === prefix || key.startsWith(`${prefix}.`))
    .map(([, message]) => message);
}

/** Splits "a, b,c" into a clean list, as string-list fields are typed. */
export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
