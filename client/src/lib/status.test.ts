import { describe, expect, it } from 'vitest';
import { progressSummary, statusSegments } from './status';

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
    expect(progressSummary(['SUCCESS', 'FAILED', 'PENDING'])).toBe('2 of 3 finished: 1 succeeded, 1 failed; 1 still running');
    expect(progressSummary(['PENDING', 'STAGING'])).toBe('0 of 2 finished, 2 still running');
    expect(progressSummary(['SUCCESS'])).toBe('1 of 1 finished: 1 succeeded');
    expect(progressSummary([])).toBe('No integrations');
  });
});
