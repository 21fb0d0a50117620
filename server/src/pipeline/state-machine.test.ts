import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_STATUSES, type RequestStatus } from '@shared/statuses';
import { retryDelayMs, pollDelayMs } from '../lib/backoff';
import { ACTIVE_STATUSES, canTransition, isActive, rollUpStatus, TRANSITIONS } from './state-machine';

const status = fc.constantFrom(...REQUEST_STATUSES);
const statuses = fc.array(status, { maxLength: 12 });

describe('integration request transitions', () => {
  it('SUCCESS and CANCELED are final', () => {
    for (const to of REQUEST_STATUSES) {
      expect(canTransition('SUCCESS', to)).toBe(false);
      expect(canTransition('CANCELED', to)).toBe(false);
    }
  });

  it('a finished request only moves again when retried, back to STAGING', () => {
    fc.assert(
      fc.property(status, status, (from, to) => {
        if (!isActive(from) && canTransition(from, to)) {
          expect(['FAILED', 'ERROR']).toContain(from);
          expect(to).toBe('STAGING');
        }
      }),
    );
  });

  it('every active status can reach every final outcome, and nothing reaches STAGING but a retry or a retry wait', () => {
    for (const from of ACTIVE_STATUSES)
      for (const to of ['SUCCESS', 'FAILED', 'ERROR', 'CANCELED'] as const) expect(canTransition(from, to)).toBe(true);
    fc.assert(
      fc.property(status, (from) => !canTransition(from, 'STAGING') || ['STAGING', 'FAILED', 'ERROR'].includes(from)),
    );
  });

  it('every status is reachable from STAGING', () => {
    const seen = new Set<RequestStatus>(['STAGING']);
    const queue: RequestStatus[] = ['STAGING'];
    while (queue.length) {
      for (const next of TRANSITIONS[queue.shift()!]) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    expect([...seen].sort()).toEqual([...REQUEST_STATUSES].sort());
  });
});

describe('roll-up of a deletion request', () => {
  it('depends only on the statuses, not their order', () => {
    fc.assert(
      fc.property(statuses, fc.integer(), (list, seed) => {
        const shuffled = [...list].sort((a, b) => ((a.charCodeAt(0) * seed) % 7) - ((b.charCodeAt(0) * seed) % 7));
        expect(rollUpStatus(shuffled)).toBe(rollUpStatus(list));
      }),
    );
  });

  it('is active while any integration request is active, and then the most advanced active status', () => {
    fc.assert(
      fc.property(statuses, (list) => {
        const result = rollUpStatus(list);
        if (list.some(isActive)) {
          expect(isActive(result)).toBe(true);
          expect(list).toContain(result);
          if (list.includes('PROCESSING')) expect(result).toBe('PROCESSING');
        }
      }),
    );
  });

  it('when all are finished: SUCCESS only if all succeeded; otherwise the worst outcome', () => {
    const finished = fc.array(fc.constantFrom<RequestStatus>('SUCCESS', 'FAILED', 'ERROR', 'CANCELED'), {
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(finished, (list) => {
        const result = rollUpStatus(list);
        expect(result === 'SUCCESS').toBe(list.every((s) => s === 'SUCCESS'));
        if (list.includes('ERROR')) expect(result).toBe('ERROR');
        else if (list.includes('FAILED')) expect(result).toBe('FAILED');
        else if (list.includes('CANCELED')) expect(result).toBe('CANCELED');
      }),
    );
  });

  it('a request with no integration requests is FAILED, never left hanging', () => {
    expect(rollUpStatus([])).toBe('FAILED');
  });

  it('adding a success never changes a finished roll-up other than all-success', () => {
    const finished = fc.array(fc.constantFrom<RequestStatus>('SUCCESS', 'FAILED', 'ERROR', 'CANCELED'), {
      minLength: 1,
      maxLength: 8,
    });
    fc.assert(
      fc.property(finished, (list) => {
        expect(rollUpStatus([...list, 'SUCCESS'])).toBe(rollUpStatus(list));
      }),
    );
  });
});

describe('backoff', () => {
  it('retry delays grow exponentially with jitter and never exceed the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r) => {
        const delay = retryDelayMs(attempt, 1000, 60_000, () => r);
        const step = Math.min(60_000, 1000 * 2 ** (attempt - 1));
        expect(delay).toBeGreaterThanOrEqual(step / 2 - 1);
        expect(delay).toBeLessThanOrEqual(60_000);
      }),
    );
  });

  it('poll delays stay between the interval and the maximum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 10 }), (age) => {
        const delay = pollDelayMs(age, 60_000, 3_600_000);
        expect(delay).toBeGreaterThanOrEqual(60_000);
        expect(delay).toBeLessThanOrEqual(3_600_000);
      }),
    );
  });
});
