import { describe, expect, it } from 'vitest';
import { endOfViewerDay, startOfViewerDay, viewerToday } from './viewer-days';

// 23:30 UTC on 27 November: already the morning of 28 November in Tokyo (UTC+9).
const tokyoMorning = new Date('2026-11-27T23:30:00Z');

describe("the viewer's days", () => {
  it("offers the viewer's own date as today, not UTC's", () => {
    expect(viewerToday('local', tokyoMorning, 'Asia/Tokyo')).toBe('2026-11-28');
    expect(viewerToday('UTC', tokyoMorning)).toBe('2026-11-27');
    expect(viewerToday('local', tokyoMorning, 'America/Los_Angeles')).toBe('2026-11-27');
  });

  it('sends a picked day as the instant it starts in the viewer zone', () => {
    expect(startOfViewerDay('2026-11-28', 'local', 'Asia/Tokyo')).toBe('2026-11-27T15:00:00.000Z');
    expect(startOfViewerDay('2026-11-28', 'UTC')).toBe('2026-11-28T00:00:00.000Z');
    // The first day of summer time in New York starts at midnight, five hours behind UTC.
    expect(startOfViewerDay('2026-03-08', 'local', 'America/New_York')).toBe('2026-03-08T05:00:00.000Z');
  });

  it('ends a past day at its last instant, today at now, and leaves a day to come in the future', () => {
    const now = tokyoMorning.getTime();
    expect(endOfViewerDay('2026-11-27', 'local', now, 'Asia/Tokyo')).toBe('2026-11-27T14:59:59.999Z');
    expect(endOfViewerDay('2026-11-28', 'local', now, 'Asia/Tokyo')).toBe(tokyoMorning.toISOString());
    expect(endOfViewerDay('2026-11-29', 'local', now, 'Asia/Tokyo')).toBe('2026-11-29T14:59:59.999Z');
  });
});
