/**
 * The checks every input passes before anything else sees it (tRPC middleware for every
 * procedure, a Fastify hook for every other route): nesting no deeper than
 * MAX_INPUT_DEPTH, and no string (value or key) that PostgreSQL cannot store (a NUL
 * character) or that is not Unicode at all (an unpaired UTF-16 surrogate, which JSON's
 * `\ud800` escapes can produce and which makes `encodeURIComponent` throw).
 */

/** Deep enough for every configuration this service takes (schema forms, rule lists). */
export const MAX_INPUT_DEPTH = 32;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string is well-formed UTF-16 (no unpaired surrogate). */
export const isWellFormedText = (value: string): boolean => !LONE_SURROGATE.test(value);

export interface InputProblem {
  path: (string | number)[];
  message: string;
}

/** Why a string cannot be taken, or null. */
export function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'Text must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'Text must be valid Unicode (an unpaired surrogate was sent)';
  return null;
}

/** The first problem in a parsed input, walked without recursion (a hostile depth cannot overflow the stack). */
export function findInputProblem(input: unknown, maxDepth = MAX_INPUT_DEPTH): InputProblem | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const message = stringProblem(value);
      if (message) return { path, message };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= maxDepth)
      return { path: path.slice(0, 3), message: `Input is nested too deeply (at most ${maxDepth} levels)` };
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (const [key, child] of entries) {
      if (typeof key === 'string') {
        const message = stringProblem(key);
        if (message)
          return {
            path: [...path, key.replace(/[\u0000\ud800-\udfff]/g, '\ufffd')],
            message: `Field names: ${message.toLowerCase()}`,
          };
      }
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

/** True when JSON text nests arrays/objects deeper than `maxDepth`; a linear scan, before parsing. */
export function jsonNestsDeeperThan(text: string, maxDepth = MAX_INPUT_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
