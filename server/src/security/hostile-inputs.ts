import fc from 'fast-check';
import { z } from 'zod';
import { appRouter } from '../routers/root';

/**
 * What the hostile-input fuzz (`hostile-input.fuzz.ts`) sends: strings PostgreSQL cannot store
 * or that are odd, and each tRPC procedure's input as a plausible value with the paths of its
 * string fields, found by walking its zod schema.
 */

/** Strings PostgreSQL cannot store or that are not Unicode, alone and inside ordinary text. */
const BAD_PIECES = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\udfff\ud800', '\u0000\ud83d'];
export const badString = fc
  .tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...BAD_PIECES), fc.string({ maxLength: 12 }))
  .map(([a, bad, b]) => a + bad + b);

/** Code points that are legal but odd: non-characters, the last plane, separators, bidi controls, combining marks. */
const ODD_PIECES = [
  '\uffff',
  '\ufffe',
  '\u{10ffff}',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u200b',
  '\ufeff',
  'e\u0301',
  '👩‍👩‍👧‍👦',
  '%',
  '%zz',
  '\r\n',
  '"',
  '\\',
  '{{identifier}}',
];
export const oddString = fc.oneof(
  fc.array(fc.constantFrom(...ODD_PIECES, 'a', 'Z', '0'), { minLength: 1, maxLength: 12 }).map((p) => p.join('')),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }),
  badString,
);

// ---- Walking the procedures' zod schemas -------------------------------------------------

export type Path = (string | number)[];

/** A plausible value for a JSON schema (first branch of unions), and the paths of its string leaves. */
function sample(schema: any, path: Path = [], strings: Path[] = [], depth = 0): unknown {
  if (!schema || depth > 8) return undefined;
  if (schema.anyOf || schema.oneOf)
    return sample(
      (schema.anyOf ?? schema.oneOf).find((s: any) => s.type !== 'null') ?? schema.anyOf?.[0],
      path,
      strings,
      depth + 1,
    );
  if (schema.allOf) return sample(schema.allOf[0], path, strings, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined && schema.type !== 'object') return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      strings.push(path);
      return schema.format === 'email'
        ? 'someone@example.com'
        : schema.format === 'date-time'
          ? '2026-01-01T00:00:00.000Z'
          : schema.format === 'uri'
            ? 'https://example.com/'
            : 'x';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [sample(schema.items ?? {}, [...path, 0], strings, depth + 1)];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(schema.properties ?? {}))
        out[key] = sample(child, [...path, key], strings, depth + 1);
      if (!schema.properties) {
        // Free-form records (account secrets, configurations): one string field to spoil.
        out.field = 'x';
        strings.push([...path, 'field']);
      }
      return out;
    }
    default:
      // z.unknown() and friends: a string is as good as anything.
      strings.push(path);
      return 'x';
  }
}

export function setAt(value: unknown, path: Path, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  const [head, ...rest] = path;
  copy[head!] = setAt(copy[head!], rest, leaf);
  return copy;
}

export interface ProcedureInput {
  path: string;
  type: string;
  sample: unknown;
  strings: Path[];
}

export function procedureInputs(): ProcedureInput[] {
  const procedures = (appRouter._def as any).procedures as Record<string, any>;
  const out: ProcedureInput[] = [];
  for (const [path, procedure] of Object.entries(procedures)) {
    const input = procedure._def.inputs?.[0];
    if (!input) continue;
    let json: unknown;
    try {
      json = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
    } catch {
      json = {};
    }
    const strings: Path[] = [];
    const value = sample(json, [], strings);
    out.push({ path, type: procedure._def.type, sample: value, strings });
  }
  return out;
}
