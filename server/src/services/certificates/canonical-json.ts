const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The JSON Canonicalization Scheme of RFC 8785 (JCS), which is what a certificate's signature
 * covers: object keys sorted by their UTF-16 code units, no insignificant whitespace, strings
 * and numbers serialized as ECMAScript's JSON.stringify does. Values outside I-JSON (a number
 * that is not finite, a string with a lone surrogate) have no canonical form and are refused,
 * as the RFC requires, rather than signed as something a verifier cannot reproduce.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${value} has no canonical JSON form`);
    return JSON.stringify(value);
  }
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) throw new TypeError('a string with a lone surrogate has no canonical JSON form');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${canonicalJson(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`cannot sign a ${typeof value}`);
}

/** A string as I-JSON can carry it: each lone surrogate (half an emoji cut at a length limit) becomes U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
}
