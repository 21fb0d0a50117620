import { describe, expect, it } from 'vitest';
import { deadlineLabel } from './deadline';

describe('deadlineLabel', () => {
  const now = new Date('2026-03-10T12:00:00.000Z');
  it('counts days left, days overdue, and says nothing is owed once fulfilled', () => {
    expect(deadlineLabel('2026-03-20T12:00:00.000Z', 'PENDING', now)).toEqual({ text: '10 days left', tone: 'ok' });
    expect(deadlineLabel('2026-03-15T12:00:00.000Z', 'PENDING', now)).toEqual({ text: '5 days left', tone: 'soon' });
    expect(deadlineLabel('2026-03-07T11:00:00.000Z', 'FAILED', now)).toEqual({
      text: '3 days overdue',
      tone: 'overdue',
    });
    expect(deadlineLabel('2026-03-07T11:00:00.000Z', 'SUCCESS', now)).toEqual({ text: 'fulfilled', tone: 'done' });
  });

  it('says a canceled request was closed without being fulfilled, not "fulfilled"', () => {
    expect(deadlineLabel('2026-03-20T12:00:00.000Z', 'CANCELED', now)).toEqual({
      text: 'Closed — not fulfilled',
      tone: 'done',
    });
  });
});
