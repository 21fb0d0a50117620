/**
 * PostgreSQL refuses two things a JavaScript string can hold: U+0000 (in text and jsonb) and a
 * lone UTF-16 surrogate (in jsonb, where JSON.stringify writes it as `\ud83d`). A destination's
 * answer can hold either (a binary body, an emoji cut in half at a length limit), and an
 * outcome that cannot be written would leave its step to run again and again. Both become
 * U+FFFD, the replacement character, before anything is stored.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const storableText = (text: string): string => text.replace(UNSTORABLE, '\uFFFD');

/** JSON text PostgreSQL takes as jsonb: every string in `value` made storable. */
export const storableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? storableText(item) : item));

/** `value` with every string made storable, for a JSON column written through Prisma. */
export const storableValue = <T>(value: T): T => JSON.parse(storableJson(value)) as T;
