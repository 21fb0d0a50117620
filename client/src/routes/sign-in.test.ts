import { describe, expect, it } from 'vitest';
import { safeNext } from './sign-in';

describe('safeNext', () => {
  it('follows only paths on this site after signing in', () => {
    expect(safeNext('/requests?status=FAILED')).toBe('/requests?status=FAILED');
    expect(safeNext('//evil.example/x')).toBe('/');
    expect(safeNext('https://evil.example')).toBe('/');
    expect(safeNext(null)).toBe('/');
  });
});
