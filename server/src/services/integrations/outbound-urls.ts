import type { z } from 'zod';
import { outboundUrlFields } from '@shared/integrations/outbound-url';

type Path = (string | number)[];
interface Found {
  url: string;
  path: Path;
}

/** What the walk reads of a zod schema's definition. */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The values of `value` at the fields its schema declares URLs the service calls (`outboundUrl`), with their paths. */
function declaredUrls(schema: z.ZodType, value: unknown, path: Path): Found[] {
  if (outboundUrlFields.has(schema)) return typeof value === 'string' ? [{ url: value, path }] : [];
  const def = (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
  switch (def.type) {
    case 'object':
      return isRecord(value)
        ? Object.entries(def.shape!).flatMap(([key, field]) => declaredUrls(field, value[key], [...path, key]))
        : [];
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, i) => declaredUrls(def.element!, item, [...path, i])) : [];
    case 'record':
      return isRecord(value)
        ? Object.entries(value).flatMap(([key, item]) => declaredUrls(def.valueType!, item, [...path, key]))
        : [];
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return declaredUrls(def.innerType!, value, path);
    case 'pipe':
      return [...declaredUrls(def.in!, value, path), ...declaredUrls(def.out!, value, path)];
    case 'union':
      return def.options!.flatMap((option) => declaredUrls(option, value, path));
    case 'intersection':
      return [...declaredUrls(def.left!, value, path), ...declaredUrls(def.right!, value, path)];
    case 'lazy':
      return declaredUrls(def.getter!(), value, path);
    default:
      return [];
  }
}

/** Strings under keys ending in "url" that look like one: configurations older than the declarations are still covered. */
function urlsByKey(value: unknown, path: Path): Found[] {
  const key = String(path.at(-1) ?? '');
  if (typeof value === 'string') return /url$/i.test(key) && /^https?:\/\//i.test(value) ? [{ url: value, path }] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => urlsByKey(v, [...path, i]));
  if (isRecord(value)) return Object.entries(value).flatMap(([k, v]) => urlsByKey(v, [...path, k]));
  return [];
}

/**
 * URLs a configuration would call, by its schema's declarations and by key, each once with
 * its path; placeholders are filled with a harmless value.
 */
export function outboundUrlsOf(schema: z.ZodType, config: unknown): Found[] {
  const byPath = new Map<string, Found>();
  for (const found of [...declaredUrls(schema, config, []), ...urlsByKey(config, [])])
    byPath.set(JSON.stringify(found.path), { ...found, url: found.url.replace(/\{\{[^}]*\}\}/g, 'placeholder') });
  return [...byPath.values()];
}

/** The host of the first URL a configuration calls (webhooks, SaaS endpoints): where a connection test went. */
export function hostOfUrls(schema: z.ZodType, config: unknown): string | null {
  const first = outboundUrlsOf(schema, config)[0];
  return first && URL.canParse(first.url) ? new URL(first.url).host : null;
}
