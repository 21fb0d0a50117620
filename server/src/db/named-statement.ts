/**
 * A statement written with named parameters (`$name`), compiled once into PostgreSQL's
 * positional form (`$1`, `$2`, … in the order `params` lists them), with `values(input)`
 * giving the positional values. A name the statement uses that `params` lacks is an error
 * when the module loads, not when a request is made; so is a parameter the statement never uses.
 */
export function namedStatement<I>(
  text: string,
  params: Record<string, (input: I) => unknown>,
): { text: string; values: (input: I) => unknown[] } {
  const names = Object.keys(params);
  const used = new Set<string>();
  const compiled = text.replace(/\$([A-Za-z_]\w*)/g, (_, name: string) => {
    const index = names.indexOf(name);
    if (index < 0) throw new Error(`The statement uses $${name}, which has no value`);
    used.add(name);
    return `$${index + 1}`;
  });
  const unused = names.filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`Parameters the statement never uses: ${unused.join(', ')}`);
  const getters = names.map((name) => params[name]!);
  return { text: compiled, values: (input) => getters.map((get) => get(input)) };
}
