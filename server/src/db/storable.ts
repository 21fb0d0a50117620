/**
 * PostgreSQL refuses two things a JavaScript string can hold: U+0000 (in text and jsonb) and a
 * lone UTF-16 surrogate (in jsonb, where JSON.stringify writes it as `\ud83d`). A destination's
 * answer can hold either (a binary body, an emoji cut in half at a length limit), and an
 * outcome that cannot be written would leave its step to run again and again. Both become
 * U+FFFD, the replacement character, before anything is stored.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const storableText = (text: string): string => text.replace(UNSTORABLE, '\uFFFD');

/**
 * JSON.stringify writes U+0000 and a lone surrogate as escapes (`\u0000`, `\ud83d`): text without
 * such an escape needs nothing replaced (one with `\\u0000`, an escaped backslash, takes the
 * slower way for nothing).
 */
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** JSON text PostgreSQL takes as jsonb: every string in `value` made storable. */
export const storableJson = (value: unknown): string => {
  // Nearly every value has nothing to replace: one stringify without a replacer (several times
  // faster than one that is called for every key) and a look at its escapes.
  const text = JSON.stringify(value);
  if (text === undefined || !UNSTORABLE_ESCAPE.test(text)) return text;
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? storableText(item) : item));
};

/** `value` with every string made storable, for a JSON column written through Prisma. */
export const storableValue = <T>(value: T): T => JSON.parse(storableJson(value)) as T;
