import { describe, expect, it } from 'vitest';
import { projectRisk, type CompletionProfile } from './at-risk';

const DAY = 86_400_000;
const now = new Date('2026-11-28T12:00:00Z');
const profiles = new Map<string, CompletionProfile>([
  ['int_slow', { integrationId: 'int_slow', name: 'Amplitude', medianMs: 14 * DAY, samples: 5 }],
]);
const working = [
  { integrationId: 'int_slow', name: 'Amplitude', status: 'PENDING', createdAt: new Date(now.getTime() - DAY) },
];

describe('projecting the risk of missing a deadline', () => {
  it('flags a request whose slow integration will probably finish after its deadline', () => {
    const risk = projectRisk({ dueAt: new Date(now.getTime() + 3 * DAY), integrationRequests: working }, profiles, now);
    expect(risk).toEqual({ atRisk: true, reasons: ['Amplitude takes about 14 days: at risk'] });
  });

  it('does not also call an overdue request "at risk": it is overdue', () => {
    const overdue = projectRisk(
      { dueAt: new Date(now.getTime() - 9 * DAY), integrationRequests: working },
      profiles,
      now,
    );
    expect(overdue).toEqual({ atRisk: false, reasons: [] });
  });
});
