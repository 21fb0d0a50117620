import { describe, expect, it } from 'vitest';
import { formatDuration, formatPercent, formatRelative } from './format';

describe('formatDuration', () => {
  it('picks a unit a person reads at a glance', () => {
    expect(formatDuration(0.25)).toBe('250 ms');
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(210)).toBe('3.5 min');
    expect(formatDuration(3 * 86_400)).toBe('3 days');
    expect(formatDuration(null)).toBe('—');
  });
});

describe('formatRelative', () => {
  const now = Date.parse('2026-06-01T12:00:00Z');
  it('reads past and future times', () => {
    expect(formatRelative('2026-06-01T11:59:50Z', now)).toBe('just now');
    expect(formatRelative('2026-06-01T11:50:00Z', now)).toBe('10 min ago');
    expect(formatRelative('2026-05-30T12:00:00Z', now)).toBe('2 days ago');
    expect(formatRelative('2026-06-01T15:00:00Z', now)).toBe('in 3 h');
    expect(formatRelative(null, now)).toBe('never');
  });
});

describe('formatPercent', () => {
  it('keeps one decimal', () => {
    expect(formatPercent(2 / 3)).toBe('66.7%');
    expect(formatPercent(null)).toBe('—');
  });
});

describe('formatDateTime', () => {
  it('shows seconds and the time zone, in UTC when chosen', async () => {
    const { formatDateTime, formatTime } = await import('./format');
    const text = formatDateTime('2026-06-01T12:34:56Z', 'UTC');
    expect(text).toContain('12:34:56');
    expect(text).toContain('UTC');
    expect(formatTime('2026-06-01T12:34:56Z', 'UTC')).toMatch(/12:34:56.*UTC/);
    expect(formatDateTime(null)).toBe('—');
  });
});
