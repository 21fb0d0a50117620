import { describe, expect, it } from 'vitest';
import { businessDaysLeft } from './days-left';
import { CCPA_RULE, dueAtFor, extendedDueAtFor, GDPR_RULE, receiptConfirmByFor } from './deadlines';
import { calendarDay, endOfDayIn, isIanaTimeZone, startOfDayIn } from './zoned-days';

const CALIFORNIA = 'America/Los_Angeles';
const BERLIN = 'Europe/Berlin';
const TOKYO = 'Asia/Tokyo';
const at = (iso: string) => new Date(iso);
const iso = (date: Date | null) => date?.toISOString();

// Each case: when it was received (with its offset there), and the end of the last day there.
describe("deadlines count calendar days in the organization's time zone and end at the end of the last day there", () => {
  it.each([
    // Received late on 31 January in California: the 45th day is 17 March, across the spring change.
    ['CCPA', CALIFORNIA, '2025-01-31T23:30:00-08:00', '2025-03-17T23:59:59.999-07:00'],
    // Received at 00:30 on 31 May in Berlin (still 30 May in UTC): due at the end of 30 June there.
    ['GDPR', BERLIN, '2025-05-31T00:30:00+02:00', '2025-06-30T23:59:59.999+02:00'],
    ['GDPR', 'Europe/Paris', '2025-01-31T00:30:00+01:00', '2025-02-28T23:59:59.999+01:00'],
    // Tokyo at month ends: 08:00 on 31 March is 30 March in UTC.
    ['GDPR', TOKYO, '2025-03-31T08:00:00+09:00', '2025-04-30T23:59:59.999+09:00'],
    ['CCPA', TOKYO, '2025-01-31T08:00:00+09:00', '2025-03-17T23:59:59.999+09:00'],
    ['GDPR', TOKYO, '2024-12-31T23:00:00+09:00', '2025-01-31T23:59:59.999+09:00'],
    // Clock-change weekends in California: Saturday before the spring change, the autumn change's night.
    ['GDPR', CALIFORNIA, '2025-03-08T23:30:00-08:00', '2025-04-08T23:59:59.999-07:00'],
    ['CCPA', CALIFORNIA, '2025-11-02T01:30:00-08:00', '2025-12-17T23:59:59.999-08:00'],
    ['GDPR', CALIFORNIA, '2025-10-31T23:30:00-07:00', '2025-11-30T23:59:59.999-08:00'],
    // And in Berlin.
    ['CCPA', BERLIN, '2025-03-29T23:30:00+01:00', '2025-05-13T23:59:59.999+02:00'],
    ['GDPR', BERLIN, '2025-10-26T02:30:00+01:00', '2025-11-26T23:59:59.999+01:00'],
    ['GDPR', BERLIN, '2025-09-30T23:30:00+02:00', '2025-10-30T23:59:59.999+01:00'],
  ])('%s in %s: received %s, due %s', (regulation, zone, received, due) => {
    const rule = regulation === 'CCPA' ? CCPA_RULE : GDPR_RULE;
    expect(iso(dueAtFor(rule, at(received), zone))).toBe(at(due).toISOString());
  });

  it('extensions count the same way', () => {
    expect(iso(extendedDueAtFor(CCPA_RULE, at('2025-01-31T23:30:00-08:00'), CALIFORNIA))).toBe(
      at('2025-05-01T23:59:59.999-07:00').toISOString(),
    );
    expect(iso(extendedDueAtFor(GDPR_RULE, at('2025-05-31T00:30:00+02:00'), BERLIN))).toBe(
      at('2025-08-31T23:59:59.999+02:00').toISOString(),
    );
    expect(iso(extendedDueAtFor(GDPR_RULE, at('2025-11-30T08:00:00+09:00'), TOKYO))).toBe(
      at('2026-02-28T23:59:59.999+09:00').toISOString(),
    );
  });

  it('a date alone is that day in the zone', () => {
    const start = startOfDayIn(calendarDay('2025-05-31'), BERLIN);
    expect(start.toISOString()).toBe('2025-05-30T22:00:00.000Z');
    expect(iso(dueAtFor(GDPR_RULE, start, BERLIN))).toBe('2025-06-30T21:59:59.999Z');
    expect(startOfDayIn(calendarDay('2025-11-24'), CALIFORNIA).toISOString()).toBe('2025-11-24T08:00:00.000Z');
    expect(startOfDayIn(calendarDay('2025-03-31'), TOKYO).toISOString()).toBe('2025-03-30T15:00:00.000Z');
    // A day whose midnight the clocks skipped starts at the first instant after it.
    expect(startOfDayIn(calendarDay('2025-09-07'), 'America/Santiago').toISOString()).toBe('2025-09-07T04:00:00.000Z');
    expect(endOfDayIn(calendarDay('2025-11-02'), CALIFORNIA).toISOString()).toBe('2025-11-03T07:59:59.999Z');
  });

  it('knows IANA names only', () => {
    for (const zone of [CALIFORNIA, BERLIN, TOKYO, 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])
      expect(isIanaTimeZone(zone), zone).toBe(true);
    for (const zone of ['CEST', 'PST8PDT ', '+02:00', 'GMT+2', 'Mars/Olympus', '', 'Europe/../Berlin'])
      expect(isIanaTimeZone(zone), zone).toBe(false);
  });
});

describe("CCPA's confirmation of receipt: 10 business days on California's calendar, across both clock changes", () => {
  it('received Friday 24 October at 00:30: due by the end of Friday 7 November, so confirming that day is on time', () => {
    const by = receiptConfirmByFor('CCPA', at('2025-10-24T00:30:00-07:00'))!;
    expect(by.toISOString()).toBe(at('2025-11-07T23:59:59.999-08:00').toISOString());
    expect(businessDaysLeft(by, at('2025-11-07T12:00:00-08:00'))).toBe(0);
    expect(businessDaysLeft(by, at('2025-11-10T09:00:00-08:00'))).toBeLessThan(0);
  });

  it('received on the Friday before the spring change: due by the end of the second Friday after', () => {
    expect(iso(receiptConfirmByFor('CCPA', at('2025-02-28T23:30:00-08:00')))).toBe(
      at('2025-03-14T23:59:59.999-07:00').toISOString(),
    );
  });

  it('a date alone in California (24 November) is due by the end of Monday 8 December there', () => {
    const received = startOfDayIn(calendarDay('2025-11-24'), CALIFORNIA);
    const by = receiptConfirmByFor('CCPA', received)!;
    expect(by.toISOString()).toBe(at('2025-12-08T23:59:59.999-08:00').toISOString());
    expect(businessDaysLeft(by, at('2025-12-08T16:00:00-08:00'))).toBe(0);
  });
});

describe('days in UTC and days asked for again', () => {
  it('UTC, read without formatting, answers as a zone of offset 0 read through Intl (Etc/GMT)', () => {
    for (const received of ['2025-01-31T23:30:00Z', '2025-03-30T00:00:00Z', '2024-02-29T12:00:00Z']) {
      for (const rule of [GDPR_RULE, CCPA_RULE]) {
        expect(iso(dueAtFor(rule, at(received), 'UTC'))).toBe(iso(dueAtFor(rule, at(received), 'Etc/GMT')));
        expect(iso(dueAtFor(rule, at(received), 'Etc/UTC'))).toBe(iso(dueAtFor(rule, at(received), 'Etc/GMT')));
      }
    }
    expect(iso(startOfDayIn(calendarDay('2025-06-30'), 'UTC'))).toBe('2025-06-30T00:00:00.000Z');
  });

  it('a day asked for again starts at the same instant, in a Date of its own', () => {
    const day = calendarDay('2025-03-30');
    const first = startOfDayIn(day, BERLIN);
    first.setTime(0);
    expect(iso(startOfDayIn(day, BERLIN))).toBe('2025-03-29T23:00:00.000Z');
    expect(iso(startOfDayIn(day, CALIFORNIA))).toBe('2025-03-30T07:00:00.000Z');
  });
});
