import { describe, expect, it } from 'vitest';
import { canonicalJson, wellFormed } from './canonical-json';

// The examples of RFC 8785 (JSON Canonicalization Scheme), with its expected output.
describe('canonical JSON is RFC 8785 (JCS)', () => {
  it('serializes primitives as section 3.2.2 shows (the UTF-8 bytes of its expected output)', () => {
    const parsed = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    const expected =
      '7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72 75 65 2c 66 61 6c 73 65 5d 2c 22 6e ' +
      '75 6d 62 65 72 73 22 3a 5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31 65 2b 33 30 ' +
      '2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37 5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 ' +
      '5c 75 30 30 30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d';
    expect(Buffer.from(canonicalJson(parsed), 'utf8').toString('hex')).toBe(expected.replace(/ /g, ''));
  });

  it('sorts properties by UTF-16 code units as section 3.2.3 shows, recursively', () => {
    const parsed = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh",' +
        ' "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",' +
        ' "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    // Integer-like keys come first in a parsed object whatever the text says: read the order from the text.
    const order = [...canonicalJson(parsed).matchAll(/"([^"]*)":"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
    expect(order).toEqual(['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
    expect(canonicalJson({ b: [{ z: 1, a: 2 }], a: { y: true, x: null } })).toBe(
      '{"a":{"x":null,"y":true},"b":[{"a":2,"z":1}]}',
    );
  });

  it('refuses what I-JSON cannot carry rather than sign bytes no verifier reproduces', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(TypeError);
    expect(() => canonicalJson({ cut: 'ab\ud83d' })).toThrow(TypeError);
    expect(() => canonicalJson({ ['\udc00']: 1 })).toThrow(TypeError);
    expect(canonicalJson({ cut: wellFormed('ab\ud83d') })).toBe('{"cut":"ab\ufffd"}');
    expect(wellFormed('ok \ud83d\ude00')).toBe('ok \ud83d\ude00');
  });
});
