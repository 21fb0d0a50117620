import { describe, expect, it } from 'vitest';
import { inDisplayOrder, progressSummary, requestStatusDescription, statusSegments } from './status';

describe('statusSegments', () => {
  it('sizes segments by share, finished work first', () => {
    expect(statusSegments(['PENDING', 'SUCCESS', 'FAILED', 'SUCCESS'])).toEqual([
      { status: 'SUCCESS', count: 2, fraction: 0.5 },
      { status: 'FAILED', count: 1, fraction: 0.25 },
      { status: 'PENDING', count: 1, fraction: 0.25 },
    ]);
  });

  it('is empty without integrations', () => {
    expect(statusSegments([])).toEqual([]);
  });
});

describe('progressSummary', () => {
  it('says how far a request got in words', () => {
    expect(progressSummary(['SUCCESS', 'FAILED', 'SUCCESS', 'SUCCESS'])).toBe('4 of 4 finished: 3 succeeded, 1 failed');
    expect(progressSummary(['SUCCESS', 'FAILED', 'PENDING'])).toBe(
      '2 of 3 finished: 1 succeeded, 1 failed; 1 still running',
    );
    expect(progressSummary(['PENDING', 'STAGING'])).toBe('0 of 2 finished, 2 still running');
    expect(progressSummary(['SUCCESS'])).toBe('1 of 1 finished: 1 succeeded');
    expect(progressSummary([])).toBe('No integrations');
  });
});

describe('requestStatusDescription', () => {
  it('speaks of the destinations a request has, not of one destination', () => {
    expect(requestStatusDescription('SUCCESS', 3)).toBe('All 3 destinations confirmed the deletion');
    expect(requestStatusDescription('SUCCESS', 1)).toBe('The destination confirmed the deletion');
    expect(requestStatusDescription('FAILED', 4)).toBe('At least one destination failed; failed ones can be retried');
  });
});

describe('inDisplayOrder', () => {
  it('keeps the cards in one order whatever order the statuses arrive in', () => {
    const crm = { id: 'ir_2', name: 'CRM', status: 'PENDING' };
    const db = { id: 'ir_1', name: 'App database', status: 'SUCCESS' };
    const crm2 = { id: 'ir_3', name: 'CRM', status: 'FAILED' };
    const expected = [db, crm, crm2];
    expect(inDisplayOrder([crm, crm2, db])).toEqual(expected);
    expect(inDisplayOrder([crm2, db, crm])).toEqual(expected);
  });
});
