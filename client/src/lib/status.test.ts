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
    expect(progressSummary(['SUCCESS', 'FAILED', 'PENDING'])).toBe('1 of 3 integrations done, 1 failed');
    expect(progressSummary(['SUCCESS'])).toBe('1 of 1 integration done');
    expect(progressSummary([])).toBe('No integrations');
  });
});
