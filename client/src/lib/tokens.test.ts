import { describe, expect, it } from 'vitest';
import { tokenState } from './tokens';

describe('tokenState', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  it('is revoked before expired before active', () => {
    expect(tokenState({ revokedAt: '2026-01-01T00:00:00Z', expiresAt: '2025-01-01T00:00:00Z' }, now)).toBe('revoked');
    expect(tokenState({ revokedAt: null, expiresAt: '2026-06-01T00:00:00Z' }, now)).toBe('expired');
    expect(tokenState({ revokedAt: null, expiresAt: null }, now)).toBe('active');
  });
});
