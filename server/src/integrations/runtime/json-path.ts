/**
 * Reads a value with a small JSONPath subset: `$`, `.name`, `['name']`, `[0]`.
 * Enough for "where is the job id in this response"; no filters or wildcards.
 */
export function readJsonPath(document: unknown, path: string): unknown {
  if (!path.startsWith('$')) throw new Error(`JSONPath must start with $: ${path}`);
  const tokens = path.slice(1).match(/\.[A-Za-z_][\w-]*|\[\d+\]|\['[^']+'\]/g) ?? [];
  if (tokens.join('') !== path.slice(1)) throw new Error(`Unsupported JSONPath: ${path}`);
  let current: unknown = document;
  for (const token of tokens) {
    if (current === null || typeof current !== 'object') return undefined;
    const key = token.startsWith('.')
      ? token.slice(1)
      : token.startsWith("['")
        ? token.slice(2, -2)
        : Number(token.slice(1, -1));
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}
