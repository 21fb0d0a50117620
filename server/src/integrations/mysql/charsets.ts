/**
 * Whether a column of this MySQL/MariaDB character set can hold `value` at all. Comparing a
 * column with a value its character set cannot hold is an error ("Illegal mix of collations")
 * that would roll the whole transaction back; such a value matches nothing there instead.
 * Character sets not known here answer true: the server decides, as before.
 */
export function charsetCanHold(charset: string, value: string): boolean {
  const holds = HOLDS[charset.toLowerCase()];
  return holds ? [...value].every((c) => holds(c.codePointAt(0)!)) : true;
}

/** cp1252's letters and signs in 0x80–0x9F, which MySQL's latin1 holds besides ISO-8859-1. */
const CP1252_EXTRA = new Set([...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'].map((c) => c.codePointAt(0)!));

const everything = () => true;
const basicPlane = (code: number) => code <= 0xffff;

const HOLDS: Record<string, (code: number) => boolean> = {
  utf8mb4: everything,
  utf16: everything,
  utf16le: everything,
  utf32: everything,
  gb18030: everything,
  // MySQL's "utf8" is utf8mb3: three bytes at most, no emoji.
  utf8mb3: basicPlane,
  utf8: basicPlane,
  ucs2: basicPlane,
  ascii: (code) => code <= 0x7f,
  // MySQL's latin1 is cp1252; a superset is kept here so that no value it can hold is ever skipped.
  latin1: (code) => code <= 0xff || CP1252_EXTRA.has(code),
};
