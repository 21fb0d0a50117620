import { describe, expect, it } from 'vitest';
import { maskIdentifier } from './mask-identifier';

describe('maskIdentifier', () => {
  it('keeps enough of each part to tell rows apart', () => {
    expect(maskIdentifier('paula.baker@example.com')).toBe('pa***er@e***e.com');
    expect(maskIdentifier('peter.parker@acme-industries.co')).toBe('pe***er@ac***es.co');
    expect(maskIdentifier('user_000123')).toBe('us***23');
    expect(maskIdentifier('+14155550100')).toBe('+1***00');
  });

  it('never shows more than half of a part, and nothing of a short one', () => {
    expect(maskIdentifier('jo@ex.io')).toBe('***@***.io');
    expect(maskIdentifier('anna@mail.com')).toBe('***@***.com');
    expect(maskIdentifier('12345')).toBe('1***5');
    expect(maskIdentifier('u_42')).toBe('***');
    for (const value of ['abcdefgh', 'abcdefg', 'abcde', 'abcd', 'ab', '日本語のなまえ', 'a@b', '@', ''])
      for (const shown of maskIdentifier(value).split(/[@.]/))
        expect(shown.replace('***', '').length * 2).toBeLessThanOrEqual(Math.max([...value].length, 1));
  });
});
