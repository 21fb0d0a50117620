import { describe, expect, it } from 'vitest';
import { tokenFromHash } from './link-token';

describe('tokenFromHash', () => {
  it('reads the token from the fragment, or nothing', () => {
    expect(tokenFromHash('#token=abc_DEF-123')).toBe('abc_DEF-123');
    expect(tokenFromHash('')).toBe('');
  });
});
