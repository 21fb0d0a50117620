import { describe, expect, it } from 'vitest';
import {
  CCPA_RULE,
  daysLeft,
  dueAtFor,
  extendedDueAtFor,
  GDPR_RULE,
  isOverdue,
  regulationPolicyInputSchema,
} from './deadlines';

const at = (iso: string) => new Date(iso);

describe('GDPR: one calendar month, clamped at month ends, to the end of the day (UTC)', () => {
  it.each([
    ['2026-01-15T10:30:00.000Z', '2026-02-15T23:59:59.999Z'],
    ['2026-01-31T09:00:00.000Z', '2026-02-28T23:59:59.999Z'],
    ['2028-01-31T09:00:00.000Z', '2028-02-29T23:59:59.999Z'],
    ['2026-03-31T23:59:59.000Z', '2026-04-30T23:59:59.999Z'],
    ['2026-12-31T00:00:00.000Z', '2027-01-31T23:59:59.999Z'],
    ['2026-02-28T12:00:00.000Z', '2026-03-28T23:59:59.999Z'],
  ])('received %s is due %s', (received, due) => {
    expect(dueAtFor(GDPR_RULE, at(received)).toISOString()).toBe(due);
  });

  it('extends by two further months counted from receipt, so a clamped end does not shorten it', () => {
    expect(extendedDueAtFor(GDPR_RULE, at('2026-01-31T09:00:00.000Z'))?.toISOString()).toBe('2026-04-30T23:59:59.999Z');
    expect(extendedDueAtFor(GDPR_RULE, at('2026-11-30T09:00:00.000Z'))?.toISOString()).toBe('2027-02-28T23:59:59.999Z');
    expect(extendedDueAtFor(GDPR_RULE, at('2026-05-10T00:00:00.000Z'))?.toISOString()).toBe('2026-08-10T23:59:59.999Z');
  });

  it('adds months across years', () => {
    expect(extendedDueAtFor(GDPR_RULE, at('2026-10-31T00:00:00.000Z'))?.toISOString()).toBe('2027-01-31T23:59:59.999Z');
  });
});

describe('CCPA and custom policies: days', () => {
  it('is due 45 days after receipt and extends once by 45', () => {
    expect(dueAtFor(CCPA_RULE, at('2026-01-31T09:00:00.000Z')).toISOString()).toBe('2026-03-17T23:59:59.999Z');
    expect(extendedDueAtFor(CCPA_RULE, at('2026-01-31T09:00:00.000Z'))?.toISOString()).toBe('2026-05-01T23:59:59.999Z');
  });

  it('custom: N days, no extension when it allows none', () => {
    const rule = { name: 'LGPD', kind: 'days' as const, days: 15, extensionDays: 0 };
    expect(dueAtFor(rule, at('2026-12-20T00:00:00.000Z')).toISOString()).toBe('2027-01-04T23:59:59.999Z');
    expect(extendedDueAtFor(rule, at('2026-12-20T00:00:00.000Z'))).toBeNull();
  });

  it('refuses a custom policy named like a built-in one', () => {
    expect(regulationPolicyInputSchema.safeParse({ name: 'gdpr', days: 10 }).success).toBe(false);
    expect(regulationPolicyInputSchema.safeParse({ name: 'LGPD', days: 15 }).success).toBe(true);
  });
});

describe('days left', () => {
  it('counts the whole days before the deadline (0 on its last day), and is overdue at or after it', () => {
    const due = at('2026-02-15T10:00:00.000Z');
    expect(daysLeft(due, at('2026-02-08T10:00:00.000Z'))).toBe(7);
    expect(daysLeft(due, at('2026-02-08T11:00:00.000Z'))).toBe(6);
    expect(daysLeft(due, at('2026-02-15T09:00:00.000Z'))).toBe(0);
    // A deadline at the end of a day: received on the 28th with 45 days, 45 days left that day.
    expect(daysLeft(at('2027-01-12T23:59:59.999Z'), at('2026-11-28T01:23:00.000Z'))).toBe(45);
    expect(daysLeft(due, at('2026-02-17T11:00:00.000Z'))).toBe(-2);
    expect(isOverdue(due, at('2026-02-15T09:59:59.000Z'))).toBe(false);
    expect(isOverdue(due, at('2026-02-15T10:00:00.000Z'))).toBe(true);
  });
});
